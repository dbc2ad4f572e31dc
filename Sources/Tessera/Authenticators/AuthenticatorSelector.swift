import TesseraCore

/// What an ``AuthenticatorSelector`` chooses from (the seed's `NMAAuthenticatorSelectionContext`).
public struct AuthenticatorSelectionContext: Sendable, Equatable {
    /// The user being registered.
    public var username: String
    /// The authenticators the client's policy allows, in the policy's order. Only these may be chosen.
    public var authenticators: [AuthenticatorType]
    /// The client's whole policy (PIN and password rules, passcode fallback).
    public var policy: ClientPolicy

    /// Creates a context.
    public init(username: String, authenticators: [AuthenticatorType], policy: ClientPolicy) {
        self.username = username
        self.authenticators = authenticators
        self.policy = policy
    }
}

/// Chooses the authenticator to register (the seed's `NMAAuthenticatorSelector`), typically by asking
/// the user. Providing one is required.
public protocol AuthenticatorSelector: Sendable {
    /// Chooses one of `context.authenticators`; nil (or throwing) cancels the operation.
    func selectAuthenticator(context: AuthenticatorSelectionContext) async throws -> AuthenticatorType?
}

/// An ``AuthenticatorSelector`` backed by a closure.
public struct ClosureAuthenticatorSelector: AuthenticatorSelector {
    /// The closure.
    public let select: @Sendable (AuthenticatorSelectionContext) async throws -> AuthenticatorType?

    /// Creates a selector that calls `select`.
    public init(_ select: @escaping @Sendable (AuthenticatorSelectionContext) async throws -> AuthenticatorType?) {
        self.select = select
    }

    /// A selector that always chooses `type` if it is allowed, and nothing otherwise.
    public static func fixed(_ type: AuthenticatorType) -> ClosureAuthenticatorSelector {
        ClosureAuthenticatorSelector { $0.authenticators.contains(type) ? type : nil }
    }

    /// Calls the closure.
    public func selectAuthenticator(context: AuthenticatorSelectionContext) async throws -> AuthenticatorType? {
        try await select(context)
    }
}
