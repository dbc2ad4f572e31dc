import SQLKit

/// The reconciliation's set-based statements: they read the devices table (the devices domain's)
/// and write only this domain's `node_sync`, in one statement each, so that queuing thousands of
/// devices for a node is one round trip. The table-ownership check allows this file, and only
/// this file of Nodes/, to read `devices` (scripts/check-table-ownership.sh, NAMED_JOINS).
extension SQLNodeRepository {
    /// Queues every active device for one node (a node that was just added).
    package static func enqueueAll(nodeId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_sync (node_id, device_id, attempts, next_attempt_at, last_error)
            SELECT \(bind: nodeId), id, 0, \(bind: now), '' FROM devices WHERE status = 'active'
            ON CONFLICT (node_id, device_id) DO NOTHING
            """
        ).run()
    }

    /// Queues every active device of the client `clientId` for every enabled node (what the nodes are told of the
    /// client changed: its App Attest policy or app), in the caller's transaction.
    package static func enqueueClient(clientId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_sync (node_id, device_id, attempts, next_attempt_at, last_error)
            SELECT n.id, d.id, 0, \(bind: now), '' FROM nodes n CROSS JOIN devices d
            WHERE n.enabled = 1 AND d.client_id = \(bind: clientId) AND d.status = 'active'
            ON CONFLICT (node_id, device_id) DO NOTHING
            """
        ).run()
    }

    /// The deliveries missing for enabled nodes, at most `limit`: each device whose current state a
    /// node has not acknowledged with a receipt and that is not queued for it already. The normal path
    /// queues changes in the transaction that makes them; this catches what a race can miss (a node
    /// added in one transaction while a device is created in another, neither seeing the other's row).
    /// It reads nodes × devices, so ``SQLNodeRepository/reconcile(now:)`` runs it beside the writer.
    package static func missing(limit: Int, in sql: any SQLDatabase) async throws -> [NodeSyncPair] {
        try await sql.raw(
            """
            SELECT n.id AS node_id, d.id AS device_id FROM nodes n CROSS JOIN devices d
            WHERE n.enabled = 1
              AND NOT EXISTS (SELECT 1 FROM node_sync q WHERE q.node_id = n.id AND q.device_id = d.id)
              AND NOT EXISTS (
                SELECT 1 FROM node_receipts r WHERE r.node_id = n.id AND r.device_id = d.id
                  AND r.status = (CASE WHEN d.status = 'active' THEN 'active' ELSE 'revoked' END))
              AND (d.status = 'active' OR EXISTS (
                SELECT 1 FROM node_receipts r WHERE r.node_id = n.id AND r.device_id = d.id AND r.status = 'active'))
            LIMIT \(bind: limit)
            """
        ).all().map { NodeSyncPair(nodeId: try $0.decode(column: "node_id", as: String.self), deviceId: try $0.decode(column: "device_id", as: String.self)) }
    }

    /// Queues these deliveries (one statement), except those queued already; returns how many it queued.
    package static func enqueue(_ pairs: [NodeSyncPair], now: Int64, in sql: any SQLDatabase) async throws -> Int {
        guard !pairs.isEmpty else { return 0 }
        var insert = sql.insert(into: "node_sync").columns("node_id", "device_id", "attempts", "next_attempt_at", "last_error")
        for pair in pairs { insert = insert.values(pair.nodeId, pair.deviceId, 0, now, "") }
        return try await insert.ignoringConflicts(with: ["node_id", "device_id"]).returning("node_id").all().count
    }
}

/// A node and a device whose state it should be sent.
package struct NodeSyncPair: Sendable, Equatable {
    package var nodeId: String
    package var deviceId: String
}
