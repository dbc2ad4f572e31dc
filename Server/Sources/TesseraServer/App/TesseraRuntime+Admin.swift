import TesseraCore

/// The admin operations of capabilities 6 and 7 for the CLI (`tessera admin …`), the same services
/// the admin HTTP API uses.
extension TesseraRuntime {
    /// A client's policy (defaults when none was set).
    public func clientPolicy(clientKey: String) async throws -> ClientPolicy {
        try await policies.policy(clientId: try await clients.client(clientKey: clientKey).id)
    }

    /// Replaces a client's policy; refuses an unusable one.
    public func setClientPolicy(_ policy: ClientPolicy, clientKey: String) async throws {
        try await policies.set(policy, clientId: try await clients.client(clientKey: clientKey).id)
    }

    /// A user's sessions.
    public func userSessions(clientKey: String, userKey: String) async throws -> SessionList {
        try await sessions.list(userId: try await userAdmin.userId(clientKey: clientKey, userKey: userKey), currentId: nil)
    }

    /// Revokes a session.
    public func revokeSession(id: String) async throws {
        try await sessions.revoke(id: id, userId: nil, by: "admin")
    }

    /// A user's authenticators on active devices.
    public func userAuthenticators(clientKey: String, userKey: String) async throws -> AuthenticatorList {
        try await authenticators.list(userId: try await userAdmin.userId(clientKey: clientKey, userKey: userKey))
    }

    /// Deletes an authenticator.
    public func deleteAuthenticator(id: String) async throws {
        try await authenticators.delete(id: id, deviceId: nil)
    }
}
