import Foundation
import SQLKit
import TesseraCore

/// Storage of each client's passkey attestation settings, the one owner of `passkey_attestation_settings`.
package protocol PasskeyAttestationRepository: Sendable {
    /// The client's settings; the defaults when it has none.
    func settings(clientId: String, in sql: any SQLDatabase) async throws -> PasskeyAttestationSettings
    /// Replaces the client's settings.
    func save(clientId: String, settings: PasskeyAttestationSettings, now: Int64, in sql: any SQLDatabase) async throws
}

/// ``PasskeyAttestationRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLPasskeyAttestationRepository: PasskeyAttestationRepository {
    package init() {}

    struct Row: Decodable {
        var attestation: String
        var trust_roots: String
        var allowed_aaguids: String
    }

    package func settings(clientId: String, in sql: any SQLDatabase) async throws -> PasskeyAttestationSettings {
        guard let row = try await sql.raw(
            "SELECT attestation, trust_roots, allowed_aaguids FROM passkey_attestation_settings WHERE client_id = \(bind: clientId)"
        ).first(decoding: Row.self) else { return PasskeyAttestationSettings() }
        return PasskeyAttestationSettings(
            attestation: row.attestation, trustRoots: (try? JSONDecoder().decode([String].self, from: Data(row.trust_roots.utf8))) ?? [],
            allowedAAGUIDs: (try? JSONDecoder().decode([String].self, from: Data(row.allowed_aaguids.utf8))) ?? []
        )
    }

    package func save(clientId: String, settings: PasskeyAttestationSettings, now: Int64, in sql: any SQLDatabase) async throws {
        let roots = String(decoding: try JSONEncoder().encode(settings.trustRoots), as: UTF8.self)
        let aaguids = String(decoding: try JSONEncoder().encode(settings.allowedAAGUIDs), as: UTF8.self)
        try await sql.raw(
            """
            INSERT INTO passkey_attestation_settings (client_id, attestation, trust_roots, allowed_aaguids, updated_at)
            VALUES (\(bind: clientId), \(bind: settings.attestation), \(bind: roots), \(bind: aaguids), \(bind: now))
            ON CONFLICT (client_id) DO UPDATE SET attestation = excluded.attestation, trust_roots = excluded.trust_roots,
                allowed_aaguids = excluded.allowed_aaguids, updated_at = excluded.updated_at
            """
        ).run()
    }
}
