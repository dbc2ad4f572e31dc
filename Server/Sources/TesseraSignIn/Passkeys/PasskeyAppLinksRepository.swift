import Foundation
import SQLKit
import TesseraCore

/// Storage of the apps each client associates with the server's passkeys, the one owner of `passkey_app_links`.
package protocol PasskeyAppLinksRepository: Sendable {
    /// The client's links; empty when it has none.
    func links(clientId: String, in sql: any SQLDatabase) async throws -> PasskeyAppLinks
    /// Replaces the client's links.
    func save(clientId: String, links: PasskeyAppLinks, now: Int64, in sql: any SQLDatabase) async throws
    /// The links of every enabled client, in the order of their client IDs.
    func enabled(in sql: any SQLDatabase) async throws -> [PasskeyAppLinks]
}

/// ``PasskeyAppLinksRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLPasskeyAppLinksRepository: PasskeyAppLinksRepository {
    package init() {}

    struct Row: Decodable {
        var apple_app_ids: String
        var android_apps: String

        var links: PasskeyAppLinks {
            PasskeyAppLinks(
                appleAppIds: (try? JSONDecoder().decode([String].self, from: Data(apple_app_ids.utf8))) ?? [],
                androidApps: (try? JSONDecoder().decode([PasskeyAppLinks.AndroidApp].self, from: Data(android_apps.utf8))) ?? []
            )
        }
    }

    package func links(clientId: String, in sql: any SQLDatabase) async throws -> PasskeyAppLinks {
        try await sql.raw(
            "SELECT apple_app_ids, android_apps FROM passkey_app_links WHERE client_id = \(bind: clientId)"
        ).first(decoding: Row.self)?.links ?? PasskeyAppLinks()
    }

    package func save(clientId: String, links: PasskeyAppLinks, now: Int64, in sql: any SQLDatabase) async throws {
        let apple = String(decoding: try JSONEncoder().encode(links.appleAppIds), as: UTF8.self)
        let android = String(decoding: try JSONEncoder().encode(links.androidApps), as: UTF8.self)
        try await sql.raw(
            """
            INSERT INTO passkey_app_links (client_id, apple_app_ids, android_apps, updated_at)
            VALUES (\(bind: clientId), \(bind: apple), \(bind: android), \(bind: now))
            ON CONFLICT (client_id) DO UPDATE SET apple_app_ids = excluded.apple_app_ids, android_apps = excluded.android_apps,
                updated_at = excluded.updated_at
            """
        ).run()
    }

    package func enabled(in sql: any SQLDatabase) async throws -> [PasskeyAppLinks] {
        try await sql.raw(
            """
            SELECT l.apple_app_ids, l.android_apps FROM passkey_app_links l JOIN clients c ON c.id = l.client_id
            WHERE c.enabled = 1 ORDER BY l.client_id
            """
        ).all(decoding: Row.self).map(\.links)
    }
}
