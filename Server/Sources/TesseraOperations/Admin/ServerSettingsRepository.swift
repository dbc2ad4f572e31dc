import SQLKit

/// Settings the server keeps in the database (the admin token's hash), the one owner of
/// `server_settings`: one value per name. Each method runs on the caller's handle.
package protocol ServerSettingsRepository: Sendable {
    /// Stores `value` under `name` unless a value is stored there already; true when it stored it.
    func insertIfMissing(name: String, value: String, in sql: any SQLDatabase) async throws -> Bool
    /// Stores `value` under `name`, replacing the one stored.
    func set(name: String, value: String, in sql: any SQLDatabase) async throws
    /// The value stored under `name`; nil when there is none.
    func value(name: String, in sql: any SQLDatabase) async throws -> String?
}

/// ``ServerSettingsRepository`` over SQLKit.
package struct SQLServerSettingsRepository: ServerSettingsRepository {
    package func insertIfMissing(name: String, value: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "INSERT INTO server_settings (name, value) VALUES (\(bind: name), \(bind: value)) ON CONFLICT (name) DO NOTHING RETURNING name"
        ).first() != nil
    }

    package func set(name: String, value: String, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            "INSERT INTO server_settings (name, value) VALUES (\(bind: name), \(bind: value)) ON CONFLICT (name) DO UPDATE SET value = excluded.value"
        ).run()
    }

    package func value(name: String, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT value FROM server_settings WHERE name = \(bind: name)").first()?.decode(column: "value", as: String.self)
    }
}
