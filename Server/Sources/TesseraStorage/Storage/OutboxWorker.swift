import Foundation
import Logging
import ServiceLifecycle

/// The background worker of every outbox (courier, push, webhooks, logouts, CIBA notifications): wakes at once
/// when this instance queued something and polls for the rest (other instances, retries that fell due); keeps up
/// to `batchSize` due deliveries in flight, each attempted while its lease is renewed and its fate recorded the
/// moment its attempt ended (a delivered message is settled before a slow one beside it is done, so a `kill -9`
/// repeats at most the deliveries in flight), and claims more as they end, so that a slow receiver never holds the
/// queue behind it. It goes on until nothing is due and nothing is in flight.
///
/// A failed claim is logged and tried again with the next ended delivery or poll interval (with nothing in flight
/// the round ends and the worker polls again); a failed record leaves the row leased, so the lease runs out and it
/// is attempted again: at least once, never lost.
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

    /// Attempts everything due now, and what falls due meanwhile; returns the number of deliveries tried once
    /// none is due and none is in flight. Up to `batchSize` deliveries are in flight at once, each under a lease of
    /// its own and recorded the moment its attempt ended. The outbox is claimed again when half of them ended, and
    /// every `pollInterval` while some are still in flight, so a slow receiver holds only its own deliveries,
    /// never the queue behind them.
    @discardableResult
    package func drain() async -> Int {
        let queue = self.queue, logger = self.logger, claimant = self.claimant, limit = batchSize, poll = pollInterval
        // A child task answers true when a delivery's attempt ended, false when a poll interval passed.
        return await withTaskGroup(of: Bool.self, returning: Int.self) { group in
            var tried = 0, inFlight = 0, ticking = false, claimNow = true
            while true {
                if claimNow, inFlight < limit {
                    do {
                        for delivery in try await queue.claimDue(limit: limit - inFlight, claimant: claimant) {
                            tried += 1
                            inFlight += 1
                            group.addTask {
                                await queue.whileRenewingLeases(of: [queue.id(of: delivery)], claimant: claimant, logger: logger) {
                                    let fate = await queue.attempt(delivery, logger: logger)
                                    do {
                                        try await queue.record([(delivery, fate)], logger: logger)
                                    } catch {
                                        logger.error(
                                            "recording a delivery of the \(queue.name) failed", metadata: ["error": .string(String(describing: error))]
                                        )
                                    }
                                }
                                return true
                            }
                        }
                    } catch {
                        logger.error("claiming from the \(queue.name) failed", metadata: ["error": .string(String(describing: error))])
                    }
                }
                if inFlight == 0 {
                    group.cancelAll()
                    return tried
                }
                if !ticking {
                    ticking = true
                    group.addTask {
                        try? await Task.sleep(for: poll)
                        return false
                    }
                }
                guard let ended = await group.next() else { return tried }
                if ended {
                    inFlight -= 1
                    claimNow = inFlight <= limit / 2
                } else {
                    ticking = false
                    claimNow = true
                }
            }
        }
    }
}
