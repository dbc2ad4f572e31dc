import SQLKit
import TesseraCore

/// Storage of each client's App Attest settings, the one owner of `app_attest_settings`. Methods take the caller's
/// database handle.
package protocol AppAttestSettingsRepository: Sendable {
    /// The client's settings; the defaults (policy `off`) when it has none.
    func settings(clientId: String, in sql: any SQLDatabase) async throws -> AppAttestSettings
    /// Replaces the client's settings.
    func save(clientId: String, settings: AppAttestSettings, now: Int64, in sql: any SQLDatabase) async throws
}

/// ``AppAttestSettingsRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLAppAttestSettingsRepository: AppAttestSettingsRepository {
    /// The repository.
    package init() {}

    /// A row of `app_attest_settings`.
    private struct Row: Decodable {
        var policy: String
        var team_id: String
        var bundle_id: String
        var environment: String
        var assert_sign_in: Int
    }

    package func settings(clientId: String, in sql: any SQLDatabase) async throws -> AppAttestSettings {
        guard let row = try await sql.raw(
            "SELECT policy, team_id, bundle_id, environment, assert_sign_in FROM app_attest_settings WHERE client_id = \(bind: clientId)"
        ).first(decoding: Row.self) else { return AppAttestSettings() }
        return AppAttestSettings(
            policy: row.policy, teamId: row.team_id, bundleId: row.bundle_id, environment: row.environment, assertSignIn: row.assert_sign_in != 0
        )
    }

    package func save(clientId: String, settings: AppAttestSettings, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO app_attest_settings (client_id, policy, team_id, bundle_id, environment, assert_sign_in, updated_at)
            VALUES (\(bind: clientId), \(bind: settings.policy), \(bind: settings.teamId), \(bind: settings.bundleId),
                    \(bind: settings.environment), \(bind: settings.assertSignIn ? 1 : 0), \(bind: now))
            ON CONFLICT (client_id) DO UPDATE SET policy = excluded.policy, team_id = excluded.team_id,
                bundle_id = excluded.bundle_id, environment = excluded.environment, assert_sign_in = excluded.assert_sign_in,
                updated_at = excluded.updated_at
            """
        ).run()
    }
}
