import Foundation
import Logging
import TesseraCore

/// The courier's worker: an ``OutboxWorker`` over the `outbox` of one-time codes and notices.
package typealias CourierService = OutboxWorker<CourierDeliveries>

/// The courier's outbox as its worker drains it: each claimed message goes to the sender of its
/// channel; sent ones are settled, failed ones retried with backoff until given up.
package struct CourierDeliveries: DeliveryQueue {
    package let outbox: any OutboxRepository
    package let senders: [OTPChannel: any MessageSender]
    /// Counts deliveries and failures by channel (nil: not counted).
    package let metrics: (any CourierMetrics)?

    package var name: String { "outbox" }

    package func claimDue(limit: Int, claimant: String) async throws -> [(message: OutboundMessage, attempts: Int)] {
        try await outbox.claimDue(limit: limit, claimant: claimant)
    }

    package func id(of delivery: (message: OutboundMessage, attempts: Int)) -> String { delivery.message.id }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await outbox.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    /// Hands the message to its channel's sender.
    package func attempt(_ delivery: (message: OutboundMessage, attempts: Int), logger: Logger) async -> DeliveryFate {
        let message = delivery.message
        var logger = logger
        logger[metadataKey: "message"] = .string(message.id)
        logger[metadataKey: "channel"] = .string(message.channel.rawValue)
        guard let sender = senders[message.channel] else {
            metrics?.otpDelivery(channel: message.channel, delivered: false)
            return .retry(error: "no sender for channel")
        }
        do {
            try await sender.send(message)
            metrics?.otpDelivery(channel: message.channel, delivered: true)
            logger.info("message delivered", metadata: ["attempt": .stringConvertible(delivery.attempts)])
            return .delivered
        } catch {
            metrics?.otpDelivery(channel: message.channel, delivered: false)
            logger.warning("delivery failed", metadata: ["attempt": .stringConvertible(delivery.attempts), "error": .string(String(describing: error))])
            return .retry(error: String(describing: error))
        }
    }

    package func record(_ fates: [(delivery: (message: OutboundMessage, attempts: Int), fate: DeliveryFate)], logger: Logger) async throws {
        try await outbox.markSent(ids: fates.filter(\.fate.isSettled).map(\.delivery.message.id))
        for (delivery, fate) in fates {
            switch fate {
            case .delivered, .dropped: continue
            case .retry(let error, _, _), .postponed(let error, _): try await outbox.markFailed(id: delivery.message.id, attempts: delivery.attempts, error: error)
            case .refused(let error, _): try await outbox.markFailed(id: delivery.message.id, attempts: .max, error: error)
            }
        }
    }
}

extension OutboxWorker where Queue == CourierDeliveries {
    /// The courier's worker over `outbox`, sending through `senders`.
    package convenience init(
        outbox: any OutboxRepository, senders: [OTPChannel: any MessageSender], logger: Logger, pollInterval: Duration = .seconds(1),
        metrics: (any CourierMetrics)? = nil
    ) {
        self.init(queue: CourierDeliveries(outbox: outbox, senders: senders, metrics: metrics), logger: logger, pollInterval: pollInterval)
    }

    /// Whether a channel has a way to deliver.
    package func canDeliver(_ channel: OTPChannel) -> Bool { queue.senders[channel] != nil }

    /// Sets the queue gauges from the outbox (called when `/metrics` is scraped).
    package func recordQueue(now: Int64) async throws {
        guard let metrics = queue.metrics else { return }
        let pending = try await queue.outbox.pending()
        metrics.courierQueue(depth: pending.count, oldestAge: .milliseconds(pending.oldestCreatedAt.map { max(0, now - $0) } ?? 0))
    }
}
