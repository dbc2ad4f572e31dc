import Crypto
import Foundation
import Logging
import ServiceLifecycle
import SQLKit
import TesseraCore

/// Tells every node about each device's keys and revocations, and keeps the nodes' signed receipts.
///
/// A change is queued in `node_sync` in the same transaction that changes the device, so no node is
/// forgotten if the process stops; ``flush(deviceIds:)`` delivers right after the commit and this
/// service retries what is left (exponential backoff, up to 5 min between tries).
struct NodeSyncService: Service {
    let database: any Database
    let directory: NodeDirectory
    let clock: WallClock
    let logger: Logger
    var pollInterval: Duration = .seconds(1)

    /// Queues the device's current state for every enabled node.
    static func enqueue(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_sync (node_id, device_id, attempts, next_attempt_at, last_error)
            SELECT id, \(bind: deviceId), 0, \(bind: now), '' FROM nodes WHERE enabled = 1
            ON CONFLICT (node_id, device_id) DO UPDATE SET attempts = 0, next_attempt_at = \(bind: now)
            """
        ).run()
    }

    /// Polls before each full reconciliation (``enqueueMissing(now:in:)``): at start, then about once a minute.
    var reconcileEvery = 60

    func run() async throws {
        var polls = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                if polls % reconcileEvery == 0 { try await reconcile() }
                if polls % 5 == 0 { try await directory.heartbeat() }
                try await deliverDue()
            } catch {
                logger.warning("node sync failed", metadata: ["error": .string(String(describing: error))])
            }
            polls += 1
            try? await Task.sleep(for: pollInterval)
        }
    }

    /// Queues whatever a node is missing (see ``enqueueMissing(now:in:)``) and drops queued changes
    /// for nodes that are disabled or gone.
    func reconcile() async throws {
        let now = clock.now()
        let queued = try await database.transaction { sql in
            try await sql.raw("DELETE FROM node_sync WHERE node_id NOT IN (SELECT id FROM nodes WHERE enabled = 1)").run()
            return try await Self.enqueueMissing(now: now, in: sql)
        }
        if queued > 0 { logger.info("node sync queued missing deliveries", metadata: ["count": .stringConvertible(queued)]) }
    }

    /// Delivers the queued changes of these devices now (after the transaction that made them).
    func flush(deviceIds: [String]) async {
        do {
            let rows = try await database.withSQL { sql in
                try await sql.select().columns("node_id", "device_id", "attempts").from("node_sync")
                    .where("device_id", .in, deviceIds).all()
            }
            try await deliver(rows)
        } catch {
            logger.warning("node sync failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    /// Delivers what is due for the nodes this instance can reach. Changes queued for a node this
    /// instance does not know (yet) stay queued: another instance's embedded node, or one added a
    /// moment ago that the next directory refresh brings in.
    func deliverDue() async throws {
        let now = clock.now()
        let reachable = try await directory.current().map(\.entry.nodeId)
        guard !reachable.isEmpty else { return }
        let rows = try await database.withSQL { sql in
            try await sql.select().columns("node_id", "device_id", "attempts").from("node_sync")
                .where("next_attempt_at", .lessThanOrEqual, now).where("node_id", .in, reachable)
                .orderBy("next_attempt_at").limit(200).all()
        }
        try await deliver(rows)
    }

    private func deliver(_ rows: [any SQLRow]) async throws {
        guard !rows.isEmpty else { return }
        let work = try rows.map {
            (node: try $0.decode(column: "node_id", as: String.self), device: try $0.decode(column: "device_id", as: String.self),
             attempts: try $0.decode(column: "attempts", as: Int.self))
        }
        await withTaskGroup(of: Void.self) { group in
            for item in work {
                group.addTask { await deliverOne(nodeId: item.node, deviceId: item.device, attempts: item.attempts) }
            }
        }
    }

    private func deliverOne(nodeId: String, deviceId: String, attempts: Int) async {
        do {
            // A node this instance has not loaded yet (added by another process a moment ago) is
            // looked up once more; one it cannot reach keeps its queued change for whoever can, and
            // the reconciliation drops changes for nodes that are disabled.
            guard let node = try await directory.node(nodeId, refreshing: true) else { return }
            guard let record = try await Self.record(deviceId: deviceId, database: database) else { return }
            let receipt = try await node.client.store(record)
            let statement = AuthStatement.receipt(
                nodeId: receipt.nodeId, deviceId: receipt.deviceId, status: receipt.status, keysDigest: receipt.keysDigest,
                signedAt: receipt.signedAt
            )
            guard receipt.nodeId == nodeId, receipt.deviceId == deviceId, receipt.keysDigest == record.keysDigest,
                  let signature = Data(base64Encoded: receipt.signature), node.publicKey.isValidSignature(signature, for: statement)
            else { throw NodeCallError(nodeId: nodeId, code: nil, message: "receipt does not verify") }
            let now = clock.now()
            try await database.transaction { sql in
                try await sql.raw(
                    """
                    INSERT INTO node_receipts (node_id, device_id, status, keys_digest, signed_at, signature, received_at)
                    VALUES (\(bind: nodeId), \(bind: deviceId), \(bind: receipt.status), \(bind: receipt.keysDigest),
                            \(bind: receipt.signedAt), \(bind: receipt.signature), \(bind: now))
                    ON CONFLICT (node_id, device_id) DO UPDATE SET status = \(bind: receipt.status), keys_digest = \(bind: receipt.keysDigest),
                        signed_at = \(bind: receipt.signedAt), signature = \(bind: receipt.signature), received_at = \(bind: now)
                    """
                ).run()
                try await sql.raw("DELETE FROM node_sync WHERE node_id = \(bind: nodeId) AND device_id = \(bind: deviceId)").run()
            }
            directory.markHealthy(nodeId)
        } catch {
            directory.markFailed(nodeId)
            let delay = min(Int64(1000) << min(attempts, 9), 300_000)
            let message = String(String(describing: error).prefix(300))
            let now = clock.now()
            _ = try? await database.withSQL { sql in
                try await sql.raw(
                    """
                    UPDATE node_sync SET attempts = attempts + 1, next_attempt_at = \(bind: now + delay), last_error = \(bind: message)
                    WHERE node_id = \(bind: nodeId) AND device_id = \(bind: deviceId)
                    """
                ).run()
            }
            logger.info("node sync will retry", metadata: ["node": .string(nodeId), "device": .string(deviceId), "error": .string(message)])
        }
    }

    static func record(deviceId: String, database: any Database) async throws -> NodeDeviceRecord? {
        try await database.read { sql in try await SQLDeviceRepository.nodeRecord(deviceId: deviceId, in: sql) }
    }
}
