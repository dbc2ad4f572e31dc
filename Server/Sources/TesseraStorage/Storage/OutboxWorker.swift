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
                                    await Self.record(fate, of: delivery, in: queue, logger: logger)
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

    /// How long a fate that could not be recorded is tried again (the database restarting, a failover): a delivery
    /// whose fate was never recorded is attempted again once its lease ran out, so a message already handed over
    /// would go out twice. The lease is renewed meanwhile, as for a slow attempt.
    package static var recordPatience: Duration { .seconds(30) }

    /// Records `fate`, trying again with backoff (0.1 s doubling to 2 s) for up to ``recordPatience`` while the
    /// database refuses; then the row is left to its lease, and attempted again when the lease ends.
    static func record(_ fate: DeliveryFate, of delivery: Queue.Delivery, in queue: Queue, logger: Logger) async {
        let deadline = ContinuousClock.now + recordPatience
        var pause = Duration.milliseconds(100)
        while true {
            do {
                try await queue.record([(delivery, fate)], logger: logger)
                return
            } catch {
                let metadata: Logger.Metadata = ["error": .string(String(describing: error)), "delivery": .string(queue.id(of: delivery))]
                guard ContinuousClock.now + pause < deadline, !Task.isCancelled else {
                    logger.error("recording a delivery of the \(queue.name) failed; it is attempted again when its lease ends", metadata: metadata)
                    return
                }
                logger.warning("recording a delivery of the \(queue.name) failed; trying again", metadata: metadata)
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(2))
            }
        }
    }
}
