import Crypto
import Foundation
import Logging
import ServiceLifecycle
import TesseraCore

/// Tells every node about each device's keys and revocations, and keeps the nodes' signed receipts.
///
/// A change is queued in `node_sync` in the same transaction that changes the device, so no node is
/// forgotten if the process stops; ``flush(deviceIds:)`` delivers right after the commit and this
/// service retries what is left (exponential backoff, up to 5 min between tries).
package struct NodeSyncService: Service, DeviceChangeFeed {
    package let repository: any NodeRepository
    package let devices: any DeviceRepository
    package let directory: NodeDirectory
    package let clock: WallClock
    package let logger: Logger
    package var pollInterval: Duration = .seconds(1)
    /// One delivery call at a time per node; what arrives meanwhile goes with the next call.
    package let lines = NodeDeliveryLines()

    /// Polls before each full reconciliation (``reconcile()``): at start, then about once a minute.
    package var reconcileEvery = 60
    /// Adds each device's App Attest evidence and its client's requirement to the records (nil: none is sent).
    package var appAttest: AppAttestNodeEvidence?
    /// The most bytes of records one call carries (an estimate; the node reads at most 64 KiB): a record with an
    /// App Attest attestation is several KiB.
    package static let maxBatchBytes = 48 * 1024

    package init(
        repository: any NodeRepository,
        devices: any DeviceRepository,
        directory: NodeDirectory,
        clock: WallClock,
        logger: Logger,
        pollInterval: Duration = .seconds(1),
        reconcileEvery: Int = 60,
        appAttest: AppAttestNodeEvidence? = nil
    ) {
        self.appAttest = appAttest
        self.repository = repository
        self.devices = devices
        self.directory = directory
        self.clock = clock
        self.logger = logger
        self.pollInterval = pollInterval
        self.reconcileEvery = reconcileEvery
    }

    package func run() async throws {
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

    /// Queues whatever a node is missing (see ``SQLNodeRepository/reconcile(now:)``) and
    /// drops queued changes for nodes that are disabled or gone.
    package func reconcile() async throws {
        let queued = try await repository.reconcile(now: clock.now())
        if queued > 0 { logger.info("node sync queued missing deliveries", metadata: ["count": .stringConvertible(queued)]) }
    }

    /// Delivers the queued changes of these devices now (after the transaction that made them).
    package func flush(deviceIds: [String]) async {
        do {
            try await deliver(try await repository.queued(deviceIds: deviceIds))
        } catch {
            logger.warning("node sync failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    /// Delivers what is due for the nodes this instance can reach. Changes queued for a node this
    /// instance does not know (yet) stay queued: another instance's embedded node, or one added a
    /// moment ago that the next directory refresh brings in.
    package func deliverDue() async throws {
        let reachable = try await directory.current().map(\.entry.nodeId)
        try await deliver(try await repository.due(now: clock.now(), nodeIds: reachable, limit: 200))
    }

    private func deliver(_ work: [NodeSyncItem]) async throws {
        guard !work.isEmpty else { return }
        // One read of the devices for every node the changes go to.
        var records = try await devices.nodeRecords(deviceIds: work.map(\.deviceId))
        try await appAttest?.attach(to: &records)
        let work = work.map { item in
            var item = item
            item.record = records[item.deviceId]
            return item
        }
        await withTaskGroup(of: Void.self) { group in
            for (nodeId, items) in Dictionary(grouping: work, by: \.nodeId) {
                group.addTask { await lines.line(nodeId).deliver(items) { batch in await deliverBatch(nodeId: nodeId, batch) } }
            }
        }
    }

    /// Sends queued changes to one node, ``NodeDeviceBatch/maxRecords`` per call, keeps the receipts
    /// that verify (one transaction per call) and schedules a retry for the rest.
    private func deliverBatch(nodeId: String, _ items: [NodeSyncItem]) async {
        // The same device may be queued twice (a flush and the retry loop at once): send it once.
        var unique: [String: NodeSyncItem] = [:]
        for item in items { unique[item.deviceId] = unique[item.deviceId].map { $0.attempts >= item.attempts ? $0 : item } ?? item }
        for chunk in Self.chunks(Array(unique.values)) {
            await deliverChunk(nodeId: nodeId, chunk)
        }
    }

    /// `items` in calls of at most ``NodeDeviceBatch/maxRecords`` records and about ``maxBatchBytes`` (a record
    /// larger than that goes alone).
    package static func chunks(_ items: [NodeSyncItem]) -> [[NodeSyncItem]] {
        var chunks: [[NodeSyncItem]] = [], current: [NodeSyncItem] = [], bytes = 0
        for item in items {
            let size = 512 + (item.record?.appAttest.map { $0.attestationObject.utf8.count + 256 } ?? 0)
            if !current.isEmpty, current.count == NodeDeviceBatch.maxRecords || bytes + size > maxBatchBytes {
                chunks.append(current)
                current = []
                bytes = 0
            }
            current.append(item)
            bytes += size
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }

    private func deliverChunk(nodeId: String, _ items: [NodeSyncItem]) async {
        var failed: [(item: NodeSyncItem, message: String)] = []
        do {
            // A node this instance has not loaded yet (added by another process a moment ago) is
            // looked up once more; one it cannot reach keeps its queued change for whoever can, and
            // the reconciliation drops changes for nodes that are disabled.
            guard let node = try await directory.node(nodeId, refreshing: true) else { return }
            // A device that is gone has no record: nothing to send (the reconciliation settles it).
            let sent = items.compactMap { item in item.record.map { (item: item, record: $0) } }
            guard !sent.isEmpty else { return }
            let outcomes = try await node.client.storeAll(sent.map(\.record))
            var receipts: [NodeReceiptRecord] = []
            for ((item, record), outcome) in zip(sent, outcomes) {
                guard let receipt = outcome.receipt else {
                    failed.append((item, "node \(nodeId): \(outcome.code.map { "\(ErrorCode(rawValue: $0)) " } ?? "")\(outcome.title ?? "refused")"))
                    continue
                }
                let statement = AuthStatement.receipt(
                    nodeId: receipt.nodeId, deviceId: receipt.deviceId, status: receipt.status, keysDigest: receipt.keysDigest,
                    signedAt: receipt.signedAt
                )
                guard receipt.deviceId == item.deviceId, receipt.keysDigest == record.keysDigest, node.signed(receipt.signature, as: receipt.nodeId, over: statement)
                else {
                    failed.append((item, "node \(nodeId): receipt does not verify"))
                    continue
                }
                receipts.append(
                    NodeReceiptRecord(
                        nodeId: nodeId, deviceId: item.deviceId, status: receipt.status, keysDigest: receipt.keysDigest, signedAt: receipt.signedAt,
                        signature: receipt.signature
                    )
                )
            }
            try await repository.storeReceipts(receipts, receivedAt: clock.now())
            if failed.isEmpty { directory.markHealthy(nodeId) } else { directory.markFailed(nodeId) }
        } catch {
            directory.markFailed(nodeId)
            let message = String(String(describing: error).prefix(300))
            failed = items.map { ($0, message) }
        }
        let now = clock.now()
        for (item, message) in failed {
            let delay = min(Int64(1000) << min(item.attempts, 9), 300_000)
            let message = String(message.prefix(300))
            _ = try? await repository.postpone(item, until: now + delay, error: message)
            logger.info("node sync will retry", metadata: ["node": .string(nodeId), "device": .string(item.deviceId), "error": .string(message)])
        }
    }
}
