import SQLKit

/// The reconciliation's set-based statements: they read the devices table (the devices domain's)
/// and write only this domain's `node_sync`, in one statement each, so that queuing thousands of
/// devices for a node is one round trip. The table-ownership check allows this file, and only
/// this file of Nodes/, to read `devices` (scripts/check-table-ownership.sh, NAMED_JOINS).
extension SQLNodeRepository {
    /// Queues every active device for one node (a node that was just added).
    static func enqueueAll(nodeId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_sync (node_id, device_id, attempts, next_attempt_at, last_error)
            SELECT \(bind: nodeId), id, 0, \(bind: now), '' FROM devices WHERE status = 'active'
            ON CONFLICT (node_id, device_id) DO NOTHING
            """
        ).run()
    }

    /// Queues, for every enabled node, each device whose current state that node has not yet
    /// acknowledged with a receipt and that is not queued already. The normal path queues changes in
    /// the transaction that makes them; this catches what a race can miss (a node added in one
    /// transaction while a device is created in another, neither seeing the other's row). Returns
    /// how many deliveries it queued.
    @discardableResult
    static func enqueueMissing(now: Int64, in sql: any SQLDatabase) async throws -> Int {
        let rows = try await sql.raw(
            """
            INSERT INTO node_sync (node_id, device_id, attempts, next_attempt_at, last_error)
            SELECT n.id, d.id, 0, \(bind: now), '' FROM nodes n CROSS JOIN devices d
            WHERE n.enabled = 1
              AND NOT EXISTS (SELECT 1 FROM node_sync q WHERE q.node_id = n.id AND q.device_id = d.id)
              AND NOT EXISTS (
                SELECT 1 FROM node_receipts r WHERE r.node_id = n.id AND r.device_id = d.id
                  AND r.status = (CASE WHEN d.status = 'active' THEN 'active' ELSE 'revoked' END))
              AND (d.status = 'active' OR EXISTS (
                SELECT 1 FROM node_receipts r WHERE r.node_id = n.id AND r.device_id = d.id AND r.status = 'active'))
            ON CONFLICT (node_id, device_id) DO NOTHING
            RETURNING node_id
            """
        ).all()
        return rows.count
    }
}
