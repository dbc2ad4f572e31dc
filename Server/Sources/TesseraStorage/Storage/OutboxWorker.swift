import Foundation
import Logging
import ServiceLifecycle

/// The background worker of every outbox (courier, push, webhooks): wakes at once when this instance
/// queued something and polls for the rest (other instances, retries that fell due); claims a batch
/// of due deliveries, attempts them in parallel while their leases are renewed, records each fate the
/// moment its attempt ended (a delivered message is settled before a slow one of its batch is done, so a
/// `kill -9` repeats at most the deliveries in flight), and goes on until nothing is due.
///
/// A failed claim ends the round (the worker polls again); a failed record leaves the row leased, so
/// the lease runs out and it is attempted again: at least once, never lost.
package final class OutboxWorker<Queue: DeliveryQueue>: Service, Sendable {
    /// The outbox this worker drains.
    package let queue: Queue
    package let logger: Logger
    package let pollInterval: Duration
    package let batchSize = 32
    /// This worker's name on the leases it holds (random per process).
    package let claimant: String
    private let wakeup: WorkerWakeup

    package init(queue: Queue, logger: Logger, pollInterval: Duration, wakeup: WorkerWakeup = WorkerWakeup()) {
        self.queue = queue
        self.logger = logger
        self.pollInterval = pollInterval
        self.wakeup = wakeup
        claimant = queue.name.replacingOccurrences(of: " ", with: "-") + "-" + UUID().uuidString
    }

    /// Asks the worker to look at its outbox now.
    package func wake() { wakeup.wake() }

    package func run() async throws {
        await wakeup.run(pollInterval: pollInterval) { await self.drain() }
    }

    /// Attempts everything due now. Returns the number of deliveries tried.
    @discardableResult
    package func drain() async -> Int {
        var tried = 0
        while true {
            let batch: [Queue.Delivery]
            do {
                batch = try await queue.claimDue(limit: batchSize, claimant: claimant)
            } catch {
                logger.error("claiming from the \(queue.name) failed", metadata: ["error": .string(String(describing: error))])
                return tried
            }
            if batch.isEmpty { return tried }
            tried += batch.count
            let queue = self.queue, logger = self.logger
            await queue.whileRenewingLeases(of: batch.map(queue.id(of:)), claimant: claimant, logger: logger) {
                await withTaskGroup(of: Void.self) { group in
                    for delivery in batch {
                        group.addTask {
                            let fate = await queue.attempt(delivery, logger: logger)
                            do {
                                try await queue.record([(delivery, fate)], logger: logger)
                            } catch {
                                logger.error("recording a delivery of the \(queue.name) failed", metadata: ["error": .string(String(describing: error))])
                            }
                        }
                    }
                }
            }
        }
    }
}
