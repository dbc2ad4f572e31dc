import Foundation
import Logging
import ServiceLifecycle
import TesseraCore

/// The background worker that empties the outbox: claims due messages, hands each to the sender
/// of its channel, and records the outcome (sent, or retried later with backoff). It wakes at once
/// when a message is queued by this instance and polls for the rest (other instances, retries).
public final class CourierService: Service, Sendable {
    let outbox: any OutboxRepository
    let senders: [OTPChannel: any MessageSender]
    let logger: Logger
    let pollInterval: Duration
    /// Counts deliveries and failures by channel (nil: not counted).
    let metrics: ServerMetrics?
    let batchSize = 32
    /// This worker's name on the leases it holds (random per process).
    let claimant = "courier-" + UUID().uuidString
    private let wakeup = WorkerWakeup()

    init(
        outbox: any OutboxRepository, senders: [OTPChannel: any MessageSender], logger: Logger, pollInterval: Duration = .seconds(1),
        metrics: ServerMetrics? = nil
    ) {
        self.outbox = outbox
        self.metrics = metrics
        self.senders = senders
        self.logger = logger
        self.pollInterval = pollInterval
    }

    /// Whether a channel has a way to deliver.
    func canDeliver(_ channel: OTPChannel) -> Bool { senders[channel] != nil }

    /// Sets the queue gauges from the outbox (called when `/metrics` is scraped).
    func recordQueue(now: Int64) async throws {
        guard let metrics else { return }
        let pending = try await outbox.pending()
        metrics.courierQueue(depth: pending.count, oldestAge: .milliseconds(pending.oldestCreatedAt.map { max(0, now - $0) } ?? 0))
    }

    /// Asks the worker to look at the outbox now.
    func wake() { wakeup.wake() }

    public func run() async throws {
        await wakeup.run(pollInterval: pollInterval) { await self.drain() }
    }

    /// Delivers everything due now. Returns the number of messages tried.
    @discardableResult
    func drain() async -> Int {
        await QueueDrain<(message: OutboundMessage, attempts: Int), Bool>(name: "outbox", batchSize: batchSize, logger: logger).run(
            claim: { try await outbox.claimDue(limit: $0, claimant: claimant) },
            id: { $0.message.id },
            holdingLeases: { ids, body in await outbox.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body) },
            send: { await self.deliver($0.message, attempts: $0.attempts) ? true : nil },
            settle: { settled in try await outbox.markSent(ids: settled[true] ?? []) }
        )
    }

    /// Sends one message; true when the sender accepted it. Failures are scheduled for a retry here.
    private func deliver(_ message: OutboundMessage, attempts: Int) async -> Bool {
        var logger = logger
        logger[metadataKey: "message"] = .string(message.id)
        logger[metadataKey: "channel"] = .string(message.channel.rawValue)
        guard let sender = senders[message.channel] else {
            metrics?.otpDelivery(channel: message.channel, delivered: false)
            try? await outbox.markFailed(id: message.id, attempts: attempts, error: "no sender for channel")
            return false
        }
        do {
            try await sender.send(message)
            metrics?.otpDelivery(channel: message.channel, delivered: true)
            logger.info("message delivered", metadata: ["attempt": .stringConvertible(attempts)])
            return true
        } catch {
            metrics?.otpDelivery(channel: message.channel, delivered: false)
            logger.warning("delivery failed", metadata: ["attempt": .stringConvertible(attempts), "error": .string(String(describing: error))])
            try? await outbox.markFailed(id: message.id, attempts: attempts, error: String(describing: error))
            return false
        }
    }
}
