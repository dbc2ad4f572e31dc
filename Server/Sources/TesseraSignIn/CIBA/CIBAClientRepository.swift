import SQLKit
import TesseraCore

/// Storage of each client's CIBA delivery settings, the one owner of `ciba_clients`.
package protocol CIBAClientRepository: Sendable {
    /// The client's settings (`poll` when it has none).
    func settings(clientId: String, in sql: any SQLDatabase) async throws -> CIBAClientSettings
    func save(_ settings: CIBAClientSettings, clientId: String, now: Int64, in sql: any SQLDatabase) async throws
}

/// ``CIBAClientRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLCIBAClientRepository: CIBAClientRepository {
    package init() {}

    struct Row: Decodable {
        var delivery_mode: String
        var notification_endpoint: String?
        var user_code_required: Int
    }

    package func settings(clientId: String, in sql: any SQLDatabase) async throws -> CIBAClientSettings {
        guard let row = try await sql.raw(
            "SELECT delivery_mode, notification_endpoint, user_code_required FROM ciba_clients WHERE client_id = \(bind: clientId)"
        ).first(decoding: Row.self) else { return CIBAClientSettings() }
        return CIBAClientSettings(deliveryMode: row.delivery_mode, notificationEndpoint: row.notification_endpoint, userCodeRequired: row.user_code_required != 0)
    }

    package func save(_ settings: CIBAClientSettings, clientId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO ciba_clients (client_id, delivery_mode, notification_endpoint, user_code_required, updated_at)
            VALUES (\(bind: clientId), \(bind: settings.deliveryMode), \(bind: settings.notificationEndpoint), \(bind: settings.userCodeRequired ? 1 : 0),
                    \(bind: now))
            ON CONFLICT (client_id) DO UPDATE SET delivery_mode = excluded.delivery_mode,
                notification_endpoint = excluded.notification_endpoint, user_code_required = excluded.user_code_required, updated_at = excluded.updated_at
            """
        ).run()
    }
}
