import Foundation
import Logging
import SQLKit
import TesseraCore

/// The push sender: an ``OutboxWorker`` over the push outbox.
package typealias PushService = OutboxWorker<PushDeliveries>

/// The push outbox as its worker drains it, with the courier's guarantees: due pushes are claimed
/// under a lease (never sent twice across instances), the lease is renewed while sending, a 429/5xx
/// is retried with backoff honouring `Retry-After`, a push is given up after its last attempt, and
/// one whose token the provider rejects clears that token (the device then polls).
package struct PushDeliveries: DeliveryQueue {
    package let repository: any PushRepository
    package let devices: any DevicePushTokens
    package let apns: APNsClient
    package let fcm: FCMClient
    package let unifiedPush: UnifiedPushClient
    package let clock: WallClock
    /// Counts deliveries by provider and outcome (nil: not counted).
    package let metrics: (any PushMetrics)?

    package var name: String { "push outbox" }

    package func claimDue(limit: Int, claimant: String) async throws -> [PushDelivery] {
        try await repository.claimDue(limit: limit, claimant: claimant)
    }

    package func id(of delivery: PushDelivery) -> String { delivery.id }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await repository.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    package func record(_ fates: [(delivery: PushDelivery, fate: DeliveryFate)], logger: Logger) async throws {
        try await repository.settle(ids: fates.filter { $0.fate == .delivered }.map(\.delivery.id), status: .sent)
        try await repository.settle(ids: fates.filter { $0.fate == .dropped }.map(\.delivery.id), status: .dropped)
        for (delivery, fate) in fates {
            switch fate {
            case .delivered, .dropped: continue
            case .retry(let error, _, let retryAfter):
                try await repository.markFailed(id: delivery.id, attempts: delivery.attempts, error: error, retryAfter: retryAfter)
            case .postponed(let error, _):
                try await repository.markFailed(id: delivery.id, attempts: delivery.attempts, error: error, retryAfter: nil)
            case .refused(let error, _): try await repository.markFailed(id: delivery.id, attempts: .max, error: error, retryAfter: nil)
            }
        }
    }

    /// Sends one push to the device's provider.
    package func attempt(_ delivery: PushDelivery, logger: Logger) async -> DeliveryFate {
        var logger = logger
        logger[metadataKey: "push"] = .string(delivery.id)
        logger[metadataKey: "request"] = .string(delivery.channelId)
        var provider: PushProvider?
        do {
            guard delivery.expiresAt > clock.now() else { return .dropped }
            guard let token = try await devices.pushToken(deviceId: delivery.deviceId) else { return .dropped }
            guard let settings = try await repository.settings(clientId: delivery.clientId) else { return .dropped }
            provider = settings.provider
            let message = PushMessage(requestId: delivery.channelId, deviceToken: token, expiresAt: delivery.expiresAt)
            let outcome = switch settings.provider {
            case .apns: try await apns.send(message, settings: settings)
            case .fcm: try await fcm.send(message, settings: settings)
            case .unifiedpush: try await unifiedPush.send(message, settings: settings)
            }
            metrics?.pushDelivery(provider: settings.provider, outcome: outcome.metricsOutcome)
            switch outcome {
            case .delivered:
                logger.info("push delivered", metadata: ["attempt": .stringConvertible(delivery.attempts)])
                return .delivered
            case .tokenInvalid(let reason):
                logger.notice("push token rejected; the device falls back to polling", metadata: ["reason": .string(reason)])
                try await devices.clearPushToken(deviceId: delivery.deviceId, token: token, at: clock.now())
                return .dropped
            case .retry(let reason, let after):
                logger.warning("push deferred", metadata: ["attempt": .stringConvertible(delivery.attempts), "reason": .string(reason)])
                return .retry(error: reason, retryAfter: after)
            case .rejected(let reason):
                logger.warning("push refused", metadata: ["reason": .string(reason)])
                return .refused(error: reason)
            }
        } catch {
            if let provider { metrics?.pushDelivery(provider: provider, outcome: .error) }
            logger.warning("push failed", metadata: ["attempt": .stringConvertible(delivery.attempts), "error": .string(String(describing: error))])
            return .retry(error: String(describing: error))
        }
    }
}

extension OutboxWorker where Queue == PushDeliveries {
    /// The push sender over `repository`, through the three providers.
    package convenience init(
        repository: any PushRepository, devices: any DevicePushTokens, apns: APNsClient, fcm: FCMClient, unifiedPush: UnifiedPushClient,
        clock: WallClock, logger: Logger, pollInterval: Duration, metrics: (any PushMetrics)? = nil
    ) {
        let queue = PushDeliveries(
            repository: repository, devices: devices, apns: apns, fcm: fcm, unifiedPush: unifiedPush, clock: clock, metrics: metrics
        )
        self.init(queue: queue, logger: logger, pollInterval: pollInterval)
    }
}
