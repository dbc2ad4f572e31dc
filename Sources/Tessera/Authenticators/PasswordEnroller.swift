import TesseraCore

/// What a ``PasswordEnroller`` is asked for (the seed's `NMAPasswordEnrollmentContext`).
public struct PasswordEnrollmentContext: Sendable, Equatable {
    /// The user being registered.
    public var username: String
    /// The client's password rules; the SDK checks the answer against them before sending it.
    public var policy: PasswordRules
    /// Why the previous answer was refused, nil on the first ask.
    public var lastRecoverableError: RecoverableEnrollmentError?

    /// Creates a context.
    public init(username: String, policy: PasswordRules, lastRecoverableError: RecoverableEnrollmentError? = nil) {
        self.username = username
        self.policy = policy
        self.lastRecoverableError = lastRecoverableError
    }
}

/// Asks the user for a new password (the seed's `NMAPasswordEnroller`). An answer breaking
/// ``PasswordEnrollmentContext/policy`` is refused on the device and the enroller asked again with
/// ``PasswordEnrollmentContext/lastRecoverableError``, up to ``Registration/maxEnrollmentAttempts`` answers in all.
public protocol PasswordEnroller: Sendable {
    /// The password the user chose; throwing (for instance `CancellationError`) cancels the registration.
    func enrollPassword(context: PasswordEnrollmentContext) async throws -> String
}
