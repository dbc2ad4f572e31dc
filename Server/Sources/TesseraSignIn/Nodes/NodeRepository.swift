import SQLKit
import TesseraCore

/// One queued delivery: a device's current state that a node has not yet acknowledged.
package struct NodeSyncItem: Sendable, Equatable {
    package var nodeId: String
    package var deviceId: String
    package var attempts: Int
    /// What is sent, read once for all the nodes a delivery goes to (nil until read; stays nil
    /// when the device is gone).
    package var record: NodeDeviceRecord? = nil

    package init(nodeId: String, deviceId: String, attempts: Int, record: NodeDeviceRecord? = nil) {
        self.nodeId = nodeId
        self.deviceId = deviceId
        self.attempts = attempts
        self.record = record
    }
}

/// A node's signed acknowledgement of a device's state, as kept by the server.
package struct NodeReceiptRecord: Sendable {
    package var nodeId: String
    package var deviceId: String
    package var status: String
    package var keysDigest: String
    package var signedAt: Int64
    package var signature: String
}

/// Another instance's embedded nodes showed a sign of life `lastSeen` milliseconds ago.
package struct EmbeddedNodesInUse: Error {
    package var lastSeen: Int64
}

/// Storage of the nodes domain, the one owner of `nodes` (the registry), `node_sync` (deliveries
/// queued for each node) and `node_receipts` (the nodes' signed acknowledgements). Devices queue
/// their changes through ``SQLNodeRepository/enqueue(deviceId:now:in:)`` inside their own transaction.
package protocol NodeRepository: Sendable {
    /// The enabled nodes, oldest first.
    func enabled() async throws -> [NodeEntry]
    /// Every node, with how many deliveries still wait for its receipt and the last delivery error.
    func list() async throws -> [NodeEntry]
    /// Registers a remote node and queues every active device for it; false when its key is registered already.
    func insertRemote(_ entry: NodeEntry) async throws -> Bool
    /// Enables or disables a node (enabling queues every active device again); false when unknown.
    func setEnabled(nodeId: String, _ enabled: Bool, now: Int64) async throws -> Bool
    /// Registers this instance's embedded nodes (disabling those of an instance that is gone).
    /// Throws ``EmbeddedNodesInUse`` when another instance's embedded nodes were seen within `liveness`.
    func registerEmbedded(_ nodes: [EmbeddedNode], now: Int64, liveness: Int64) async throws
    /// Sets the heartbeat of these embedded nodes (0: stopped).
    func heartbeat(embedded ids: [String], at time: Int64) async throws
    /// The queued deliveries of these devices.
    func queued(deviceIds: [String]) async throws -> [NodeSyncItem]
    /// Up to `limit` deliveries due at `now` for these nodes, oldest first.
    func due(now: Int64, nodeIds: [String], limit: Int) async throws -> [NodeSyncItem]
    /// Keeps nodes' receipts and removes the deliveries they acknowledge, in one transaction.
    func storeReceipts(_ receipts: [NodeReceiptRecord], receivedAt: Int64) async throws
    /// Tries the delivery again at `next`, keeping why it failed.
    func postpone(_ item: NodeSyncItem, until next: Int64, error: String) async throws
    /// Drops deliveries for disabled or removed nodes and queues what a node is missing; returns how many it queued.
    func reconcile(now: Int64) async throws -> Int
}

/// ``NodeRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLNodeRepository: NodeRepository {
    package let database: any Database


    package init(database: any Database) {

        self.database = database

    }

    /// Queues the device's current state for every enabled node, inside the caller's transaction.
    package static func enqueue(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_sync (node_id, device_id, attempts, next_attempt_at, last_error)
            SELECT id, \(bind: deviceId), 0, \(bind: now), '' FROM nodes WHERE enabled = 1
            ON CONFLICT (node_id, device_id) DO UPDATE SET attempts = 0, next_attempt_at = \(bind: now)
            """
        ).run()
    }

    private static let columns = "id, name, url, public_key, enabled, created_at"

    package func enabled() async throws -> [NodeEntry] {
        try await database.withSQL { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM nodes WHERE enabled = 1 ORDER BY created_at, id").all().map(Self.entry)
        }
    }

    package func list() async throws -> [NodeEntry] {
        try await database.withSQL { sql in
            var entries = try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM nodes ORDER BY created_at, id").all().map(Self.entry)
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

    package func insertRemote(_ entry: NodeEntry) async throws -> Bool {
        try await database.transaction { sql in
            let inserted = try await sql.raw(
                """
                INSERT INTO nodes (id, name, url, public_key, kind, enabled, created_at)
                VALUES (\(bind: entry.nodeId), \(bind: entry.name), \(bind: entry.url), \(bind: entry.publicKey), 'remote', 1, \(bind: entry.createdAt))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """
            ).first() != nil
            if inserted { try await Self.enqueueAll(nodeId: entry.nodeId, now: entry.createdAt, in: sql) }
            return inserted
        }
    }

    package func setEnabled(nodeId: String, _ enabled: Bool, now: Int64) async throws -> Bool {
        try await database.transaction { sql in
            guard try await sql.raw(
                "UPDATE nodes SET enabled = \(bind: enabled ? 1 : 0) WHERE id = \(bind: nodeId) RETURNING id"
            ).first() != nil else { return false }
            if enabled { try await Self.enqueueAll(nodeId: nodeId, now: now, in: sql) }
            return true
        }
    }

    package func registerEmbedded(_ started: [EmbeddedNode], now: Int64, liveness: Int64) async throws {
        let ids = started.map(\.nodeId)
        let kind = database.kind
        try await database.transaction { sql in
            // Two instances starting at once must not both see "nobody else" (SQLite's write lock does this there).
            if kind == .postgres { try await sql.raw("SELECT pg_advisory_xact_lock(7412002)").run() }
            let others = try await sql.raw("SELECT id, heartbeat_at FROM nodes WHERE kind = 'embedded' AND enabled = 1").all()
                .map { (id: try $0.decode(column: "id", as: String.self), heartbeat: try $0.decode(column: "heartbeat_at", as: Int64?.self) ?? 0) }
                .filter { !ids.contains($0.id) }
            if let live = others.map(\.heartbeat).max(), now - live < liveness { throw EmbeddedNodesInUse(lastSeen: now - live) }
            for other in others { try await sql.raw("UPDATE nodes SET enabled = 0 WHERE id = \(bind: other.id)").run() }
            for (index, node) in started.enumerated() {
                try await sql.raw(
                    """
                    INSERT INTO nodes (id, name, url, public_key, kind, enabled, created_at, heartbeat_at)
                    VALUES (\(bind: node.nodeId), \(bind: "embedded-\(index + 1)"), \(bind: "embedded:\(index + 1)"),
                            \(bind: node.publicKey), 'embedded', 1, \(bind: now), \(bind: now))
                    ON CONFLICT (id) DO UPDATE SET enabled = 1, heartbeat_at = \(bind: now)
                    """
                ).run()
            }
        }
    }

    package func heartbeat(embedded ids: [String], at time: Int64) async throws {
        guard !ids.isEmpty else { return }
        try await database.withSQL { sql in
            try await sql.update("nodes").set("heartbeat_at", to: time).where("id", .in, ids).where("kind", .equal, "embedded").run()
        }
    }

    package func queued(deviceIds: [String]) async throws -> [NodeSyncItem] {
        guard !deviceIds.isEmpty else { return [] }
        return try await database.withSQL { sql in
            try await sql.select().columns("node_id", "device_id", "attempts").from("node_sync").where("device_id", .in, deviceIds).all()
                .map(Self.item)
        }
    }

    package func due(now: Int64, nodeIds: [String], limit: Int) async throws -> [NodeSyncItem] {
        guard !nodeIds.isEmpty else { return [] }
        return try await database.withSQL { sql in
            try await sql.select().columns("node_id", "device_id", "attempts").from("node_sync")
                .where("next_attempt_at", .lessThanOrEqual, now).where("node_id", .in, nodeIds)
                .orderBy("next_attempt_at").limit(limit).all().map(Self.item)
        }
    }

    package func storeReceipts(_ receipts: [NodeReceiptRecord], receivedAt now: Int64) async throws {
        guard !receipts.isEmpty else { return }
        // One upsert and one delete per node, whatever the number of receipts (a batch is one node's).
        try await database.transaction { sql in
            for (nodeId, all) in Dictionary(grouping: receipts, by: \.nodeId) {
                // A row may be upserted once per statement (PostgreSQL): the last receipt for a device wins.
                let receipts = Array(Dictionary(all.map { ($0.deviceId, $0) }, uniquingKeysWith: { $1 }).values)
                let values = SQLList(receipts.map { receipt in
                    SQLGroupExpression(SQLList([
                        SQLBind(nodeId), SQLBind(receipt.deviceId), SQLBind(receipt.status), SQLBind(receipt.keysDigest),
                        SQLBind(receipt.signedAt), SQLBind(receipt.signature), SQLBind(now),
                    ] as [any SQLExpression]))
                })
                try await sql.raw(
                    """
                    INSERT INTO node_receipts (node_id, device_id, status, keys_digest, signed_at, signature, received_at)
                    VALUES \(values)
                    ON CONFLICT (node_id, device_id) DO UPDATE SET status = excluded.status, keys_digest = excluded.keys_digest,
                        signed_at = excluded.signed_at, signature = excluded.signature, received_at = excluded.received_at
                    """
                ).run()
                try await sql.delete(from: "node_sync").where("node_id", .equal, nodeId).where("device_id", .in, receipts.map(\.deviceId)).run()
            }
        }
    }

    package func postpone(_ item: NodeSyncItem, until next: Int64, error: String) async throws {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE node_sync SET attempts = attempts + 1, next_attempt_at = \(bind: next), last_error = \(bind: error)
                WHERE node_id = \(bind: item.nodeId) AND device_id = \(bind: item.deviceId)
                """
            ).run()
        }
    }

    /// Deliveries the reconciliation queues per call at most (the rest on the next one).
    package static let reconcileLimit = 10_000

    /// Both searches read whole tables (nodes × devices, all of `node_sync`), which on 400,000 devices took
    /// about a second: they run beside the writer (``Database/scan(_:)``), which then only deletes and
    /// inserts what they found, 500 rows a statement. What changed in between is harmless: a delivery
    /// queued twice is skipped, one queued though its receipt just arrived is sent again (the node
    /// answers with the same receipt), and a node enabled again keeps its deliveries (the delete checks).
    package func reconcile(now: Int64) async throws -> Int {
        let stale = try await database.scan { sql in
            try await sql.raw("SELECT DISTINCT node_id FROM node_sync WHERE node_id NOT IN (SELECT id FROM nodes WHERE enabled = 1)")
                .all().map { try $0.decode(column: "node_id", as: String.self) }
        }
        for nodeId in stale {
            try await database.withSQL { sql in
                try await sql.raw(
                    "DELETE FROM node_sync WHERE node_id = \(bind: nodeId) AND node_id NOT IN (SELECT id FROM nodes WHERE enabled = 1)"
                ).run()
            }
        }
        let missing = try await database.scan { try await Self.missing(limit: Self.reconcileLimit, in: $0) }
        var queued = 0
        for start in stride(from: 0, to: missing.count, by: 500) {
            let chunk = Array(missing[start..<min(start + 500, missing.count)])
            queued += try await database.withSQL { try await Self.enqueue(chunk, now: now, in: $0) }
        }
        return queued
    }

    private static func item(_ row: any SQLRow) throws -> NodeSyncItem {
        NodeSyncItem(
            nodeId: try row.decode(column: "node_id", as: String.self), deviceId: try row.decode(column: "device_id", as: String.self),
            attempts: try row.decode(column: "attempts", as: Int.self)
        )
    }

    package static func entry(_ row: any SQLRow) throws -> NodeEntry {
        NodeEntry(
            nodeId: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
            url: try row.decode(column: "url", as: String.self), publicKey: try row.decode(column: "public_key", as: String.self),
            enabled: try row.decode(column: "enabled", as: Int.self) != 0, createdAt: try row.decode(column: "created_at", as: Int64.self)
        )
    }
}
