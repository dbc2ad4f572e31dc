import SQLKit
import TesseraCore

/// Storage of the clients' own public keys and of the client assertions used (`private_key_jwt` replay), the one
/// owner of `oidc_client_keys` and `oidc_client_assertions`.
package protocol OIDCClientKeyRepository: Sendable {
    func jwks(clientId: String, in sql: any SQLDatabase) async throws -> String?
    func save(jwks: String, clientId: String, now: Int64, in sql: any SQLDatabase) async throws
    /// False when the client had no keys.
    func delete(clientId: String, in sql: any SQLDatabase) async throws -> Bool
    /// Records a client assertion's use until `expiresAt`; false when it was used before.
    func use(assertion idHash: String, expiresAt: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Forgets assertions that expired before `before` (the janitor).
    func purge(before: Int64, in sql: any SQLDatabase) async throws
}

/// ``OIDCClientKeyRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLOIDCClientKeyRepository: OIDCClientKeyRepository {
    package init() {}

    package func jwks(clientId: String, in sql: any SQLDatabase) async throws -> String? {
        struct Row: Decodable { var jwks: String }
        return try await sql.raw("SELECT jwks FROM oidc_client_keys WHERE client_id = \(bind: clientId)").first(decoding: Row.self)?.jwks
    }

    package func save(jwks: String, clientId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO oidc_client_keys (client_id, jwks, updated_at) VALUES (\(bind: clientId), \(bind: jwks), \(bind: now))
            ON CONFLICT (client_id) DO UPDATE SET jwks = excluded.jwks, updated_at = excluded.updated_at
            """
        ).run()
    }

    package func delete(clientId: String, in sql: any SQLDatabase) async throws -> Bool {
        struct Row: Decodable { var client_id: String }
        return try await sql.raw("DELETE FROM oidc_client_keys WHERE client_id = \(bind: clientId) RETURNING client_id").first(decoding: Row.self) != nil
    }

    package func use(assertion idHash: String, expiresAt: Int64, in sql: any SQLDatabase) async throws -> Bool {
        struct Row: Decodable { var id_hash: String }
        return try await sql.raw(
            """
            INSERT INTO oidc_client_assertions (id_hash, expires_at) VALUES (\(bind: idHash), \(bind: expiresAt))
            ON CONFLICT (id_hash) DO NOTHING RETURNING id_hash
            """
        ).first(decoding: Row.self) != nil
    }

    package func purge(before: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM oidc_client_assertions WHERE expires_at < \(bind: before)").run()
    }
}
