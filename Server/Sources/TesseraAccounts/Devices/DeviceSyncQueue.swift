import SQLKit

/// Where a device's change is queued for the verifier nodes, in the transaction that makes it:
/// the nodes' sync owns the queue (``NodeSyncQueue``), so the devices' repository writes no table
/// of another domain. ``DeviceChangeFeed`` then delivers what was queued once the transaction commits.
package protocol DeviceSyncQueue: Sendable {
    /// Queues the device's current state for every enabled node, as part of `sql`'s transaction.
    func enqueue(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws
}
