import Logging

/// The loop that every delivery worker runs over its ``LeasedQueue`` (the courier over `outbox`, the
/// push worker over `push_outbox`): claim a batch of due rows, send them in parallel while their
/// leases are renewed, record how each one settled, and go on until nothing is due.
///
/// A failed claim ends the round (the worker polls again); a failed record leaves the rows leased,
/// so the lease runs out and they are sent again: at least once, never lost.
struct QueueDrain<Item: Sendable, Settlement: Hashable & Sendable>: Sendable {
    /// What log lines call the queue.
    let name: String
    let batchSize: Int
    let logger: Logger

    /// Drains the queue; returns the number of items tried.
    /// - Parameters:
    ///   - claim: reserves up to the given number of due items for this worker.
    ///   - id: an item's row ID, whose lease is renewed while it is sent.
    ///   - holdingLeases: runs its body while renewing the leases of the given row IDs.
    ///   - send: sends one item; returns how it settled, or nil when it was scheduled for another try.
    ///   - settle: records the settled row IDs, grouped by settlement.
    func run(
        claim: (Int) async throws -> [Item],
        id: (Item) -> String,
        holdingLeases: ([String], () async -> [Settlement: [String]]) async -> [Settlement: [String]],
        send: @escaping @Sendable (Item) async -> Settlement?,
        settle: ([Settlement: [String]]) async throws -> Void
    ) async -> Int {
        var tried = 0
        while true {
            let batch: [Item]
            do {
                batch = try await claim(batchSize)
            } catch {
                logger.error("claiming from the \(name) failed", metadata: ["error": .string(String(describing: error))])
                return tried
            }
            if batch.isEmpty { return tried }
            tried += batch.count
            let ids = batch.map(id)
            let settled = await holdingLeases(ids) {
                await withTaskGroup(of: (String, Settlement?).self) { group in
                    for (index, item) in batch.enumerated() {
                        let itemId = ids[index]
                        group.addTask { (itemId, await send(item)) }
                    }
                    return await group.reduce(into: [Settlement: [String]]()) { settled, outcome in
                        if let settlement = outcome.1 { settled[settlement, default: []].append(outcome.0) }
                    }
                }
            }
            do {
                try await settle(settled)
            } catch {
                logger.error("recording deliveries of the \(name) failed", metadata: ["error": .string(String(describing: error))])
            }
        }
    }
}
