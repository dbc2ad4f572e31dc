import TesseraCore

/// Finding the user a sign-in names: the hosted page's identifier, a CIBA `login_hint`.
extension OIDCService {
    /// The client's user an identifier names: an e-mail address (lowercased) when it has an `@`, else a user key.
    package func user(clientId: String, identifier: String) async throws -> UserRecord? {
        let users = self.users, normalized = identifier.contains("@") ? identifier.lowercased() : identifier
        return try await database.read { sql in
            if normalized.contains("@") { return try await users.find(clientId: clientId, email: normalized, in: sql) }
            return try await users.find(clientId: clientId, userKey: normalized, in: sql)
        }
    }
}
