import SQLKit
import TesseraCore

/// Storage of each client's authentication-channel settings (Tessera as the device channel of another identity
/// server's CIBA), the one owner of `ciba_channel_clients`.
package protocol CIBAChannelRepository: Sendable {
    /// The client's settings, nil when it serves no other server.
    func settings(clientId: String, in sql: any SQLDatabase) async throws -> CIBAChannelSettings?
    func save(_ settings: CIBAChannelSettings, clientId: String, now: Int64, in sql: any SQLDatabase) async throws
    /// Removes the client's settings; false when it had none.
    func delete(clientId: String, in sql: any SQLDatabase) async throws -> Bool
}

/// ``CIBAChannelRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLCIBAChannelRepository: CIBAChannelRepository {
    package init() {}

    struct Row: Decodable {
        var issuer: String
        var callback_url: String
        var jwks: String
    }

    package func settings(clientId: String, in sql: any SQLDatabase) async throws -> CIBAChannelSettings? {
        try await sql.raw("SELECT issuer, callback_url, jwks FROM ciba_channel_clients WHERE client_id = \(bind: clientId)")
            .first(decoding: Row.self)
            .map { CIBAChannelSettings(issuer: $0.issuer, callbackUrl: $0.callback_url, jwks: $0.jwks) }
    }

    package func save(_ settings: CIBAChannelSettings, clientId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO ciba_channel_clients (client_id, issuer, callback_url, jwks, updated_at)
            VALUES (\(bind: clientId), \(bind: settings.issuer), \(bind: settings.callbackUrl ?? ""), \(bind: settings.jwks), \(bind: now))
            ON CONFLICT (client_id) DO UPDATE SET issuer = excluded.issuer, callback_url = excluded.callback_url,
                jwks = excluded.jwks, updated_at = excluded.updated_at
            """
        ).run()
    }

    package func delete(clientId: String, in sql: any SQLDatabase) async throws -> Bool {
        struct Deleted: Decodable { var client_id: String }
        return try await sql.raw("DELETE FROM ciba_channel_clients WHERE client_id = \(bind: clientId) RETURNING client_id")
            .first(decoding: Deleted.self) != nil
    }
}
