/// Supplies extra authorisation for a registration (the seed's `NMAAuthorizationProvider`, for instance a
/// cookie or a bearer token issued by the app's own backend).
///
/// Tessera already authenticates the registration with the device key (an RFC 9421 signature), so
/// a provider is optional: its headers are added to the registration request as they are, and are
/// never logged. Headers the SDK sets itself (signature, digest, client key, bundle id, content type)
/// cannot be overridden.
public protocol AuthorizationProvider: Sendable {
    /// The headers to add to the registration request.
    func authorizationHeaders() async throws -> [String: String]
}

/// An ``AuthorizationProvider`` with fixed headers.
public struct StaticAuthorizationProvider: AuthorizationProvider {
    /// The headers sent.
    public let headers: [String: String]

    /// Creates a provider sending `headers`.
    public init(headers: [String: String]) { self.headers = headers }

    /// A provider sending `Authorization: Bearer <token>`.
    public static func bearer(_ token: String) -> StaticAuthorizationProvider {
        StaticAuthorizationProvider(headers: ["Authorization": "Bearer \(token)"])
    }

    /// Returns ``headers``.
    public func authorizationHeaders() async throws -> [String: String] { headers }
}
