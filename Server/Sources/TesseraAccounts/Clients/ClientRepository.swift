import Foundation
import SQLKit

/// Storage of clients. The client key is unique by constraint.
public protocol ClientRepository: Sendable {
    func insert(_ client: Client, secretHash: String) async throws
    func find(clientKey: String) async throws -> (client: Client, secretHash: String)?
    func list() async throws -> [Client]
    /// Sets `enabled`; returns false when there is no such client.
    func setEnabled(clientKey: String, enabled: Bool, at time: Int64) async throws -> Bool
    /// Replaces the secret hash; returns the client, or nil when there is no such client.
    func replaceSecret(clientKey: String, secretHash: String, at time: Int64) async throws -> Client?
    /// The client key of each of these client IDs that exists, read on the caller's handle (the audit log's
    /// rows and webhooks name the client by its key).
    func clientKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String]
    /// The ID of the client with this key, on the caller's handle; nil when there is none.
    func clientId(clientKey: String, in sql: any SQLDatabase) async throws -> String?
}

/// ``ClientRepository`` over SQLKit.
package struct SQLClientRepository: ClientRepository {
    package let database: any Database


    package init(database: any Database) {

        self.database = database

    }

    private struct Row: Decodable {
        var id: String
        var client_key: String
        var name: String
        var bundle_ids: String
        var secret_hash: String
        var enabled: Int
        var created_at: Int64

        var client: Client {
            let bundles = (try? JSONDecoder().decode([String].self, from: Data(bundle_ids.utf8))) ?? []
            return Client(id: id, clientKey: client_key, name: name, bundleIds: bundles, enabled: enabled != 0, createdAt: created_at)
        }
    }

    package func insert(_ client: Client, secretHash: String) async throws {
        let bundles = String(decoding: try JSONEncoder().encode(client.bundleIds), as: UTF8.self)
        try await database.withSQL { sql in
            try await sql.raw(
                """
                INSERT INTO clients (id, client_key, name, bundle_ids, secret_hash, enabled, created_at, updated_at)
                VALUES (\(bind: client.id), \(bind: client.clientKey), \(bind: client.name), \(bind: bundles), \(bind: secretHash),
                        \(bind: client.enabled ? 1 : 0), \(bind: client.createdAt), \(bind: client.createdAt))
                """
            ).run()
        }
    }

    package func find(clientKey: String) async throws -> (client: Client, secretHash: String)? {
        try await database.read { sql in
            guard let row = try await sql.raw("SELECT * FROM clients WHERE client_key = \(bind: clientKey)").first(decoding: Row.self)
            else { return nil }
            return (row.client, row.secret_hash)
        }
    }

    package func list() async throws -> [Client] {
        try await database.withSQL { sql in
            try await sql.raw("SELECT * FROM clients ORDER BY created_at, id").all(decoding: Row.self).map(\.client)
        }
    }

    package func setEnabled(clientKey: String, enabled: Bool, at time: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw(
                "UPDATE clients SET enabled = \(bind: enabled ? 1 : 0), updated_at = \(bind: time) WHERE client_key = \(bind: clientKey) RETURNING id"
            ).first() != nil
        }
    }

    package func clientKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let binds: [any Encodable & Sendable] = ids
        var keys: [String: String] = [:]
        for row in try await sql.raw("SELECT id, client_key FROM clients WHERE id IN (\(binds: binds))").all() {
            keys[try row.decode(column: "id", as: String.self)] = try row.decode(column: "client_key", as: String.self)
        }
        return keys
    }

    package func clientId(clientKey: String, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT id FROM clients WHERE client_key = \(bind: clientKey)").first()?.decode(column: "id", as: String.self)
    }

    package func replaceSecret(clientKey: String, secretHash: String, at time: Int64) async throws -> Client? {
        try await database.withSQL { sql in
            try await sql.raw(
                "UPDATE clients SET secret_hash = \(bind: secretHash), updated_at = \(bind: time) WHERE client_key = \(bind: clientKey) RETURNING *"
            ).first(decoding: Row.self)?.client
        }
    }
}
