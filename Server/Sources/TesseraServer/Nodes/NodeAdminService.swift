import Crypto
import Foundation
import SQLKit
import TesseraCore

/// Admin management of verifier nodes: add a `tessera node` by URL and public key, list, disable.
public struct NodeAdminService: Sendable {
    let database: any Database
    let directory: NodeDirectory
    let clock: WallClock

    /// The public key `tessera node --server-key` must be given.
    public var serverKey: String { directory.serverKey }

    /// Every node, with how many device changes still wait for its receipt and the last delivery error.
    public func list() async throws -> [NodeEntry] {
        try await database.withSQL { sql in
            var entries = try await sql.raw("SELECT id, name, url, public_key, enabled, created_at FROM nodes ORDER BY created_at, id").all()
                .map(NodeDirectory.entry)
            for index in entries.indices {
                let row = try await sql.raw(
                    """
                    SELECT COUNT(*) AS pending, MAX(last_error) AS last_error FROM node_sync WHERE node_id = \(bind: entries[index].nodeId)
                    """
                ).first()
                entries[index].pendingDevices = try row?.decode(column: "pending", as: Int.self) ?? 0
                let error = try row?.decode(column: "last_error", as: String?.self) ?? nil
                entries[index].lastError = (error?.isEmpty ?? true) ? nil : error
            }
            return entries
        }
    }

    /// Registers a node and queues every active device for it.
    public func add(url: String, publicKey: String, name: String?) async throws -> NodeEntry {
        let trimmed = url.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard let parsed = URL(string: trimmed), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil, trimmed.count <= 500 else {
            throw AppError.invalidField("url", "url must be http(s)://host:port of a tessera node")
        }
        guard let raw = Data(base64Encoded: publicKey.trimmingCharacters(in: .whitespaces)), raw.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil
        else { throw AppError.invalidField("publicKey", "publicKey must be the node's Ed25519 public key (32 bytes, base64), as `tessera node` prints it") }
        let id = NodeInfo.nodeId(publicKey: raw)
        let now = clock.now()
        let entry = NodeEntry(
            nodeId: id, name: name.flatMap { $0.isEmpty ? nil : $0 } ?? id, url: trimmed, publicKey: raw.base64EncodedString(), enabled: true, createdAt: now
        )
        guard entry.name.count <= 100 else { throw AppError.invalidField("name", "name must be at most 100 characters") }
        try await database.transaction { sql in
            let inserted = try await sql.raw(
                """
                INSERT INTO nodes (id, name, url, public_key, kind, enabled, created_at)
                VALUES (\(bind: id), \(bind: entry.name), \(bind: trimmed), \(bind: entry.publicKey), 'remote', 1, \(bind: now))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """
            ).first() != nil
            guard inserted else { throw AppError(.conflict, .conflict, "A node with this public key is already registered") }
            try await NodeSyncService.enqueueAll(nodeId: id, now: now, in: sql)
        }
        try await directory.reload()
        return entry
    }

    /// Enables or disables a node; enabling queues every active device again.
    public func setEnabled(nodeId: String, _ enabled: Bool) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            guard try await sql.raw(
                "UPDATE nodes SET enabled = \(bind: enabled ? 1 : 0) WHERE id = \(bind: nodeId) RETURNING id"
            ).first() != nil else { throw AppError(.nodeUnknown, .notFound, "No such node") }
            if enabled { try await NodeSyncService.enqueueAll(nodeId: nodeId, now: now, in: sql) }
        }
        try await directory.reload()
    }
}
