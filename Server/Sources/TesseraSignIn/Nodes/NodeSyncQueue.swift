import SQLKit

/// The verifier nodes' side of ``DeviceSyncQueue``: a row in `node_sync` per enabled node
/// (``SQLNodeRepository/enqueue(deviceId:now:in:)``).
package struct NodeSyncQueue: DeviceSyncQueue {
    package init() {}

    package func enqueue(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await SQLNodeRepository.enqueue(deviceId: deviceId, now: now, in: sql)
    }
}
