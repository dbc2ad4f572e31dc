import Foundation
import Logging
import ServiceLifecycle
import SQLKit
import TesseraCore

/// The background worker that empties the push outbox with the courier's guarantees: due pushes are
/// claimed under a lease (never sent twice across instances), the lease is renewed while sending,
/// a 429/5xx is retried with backoff honouring `Retry-After`, a push is given up after its last
/// attempt, and one whose token the provider rejects clears that token (the device then polls).
/// It wakes at once when this instance queued a push and polls for the rest.
public final class PushService: Service, Sendable {
    let repository: any PushRepository
    let devices: any DevicePushTokens
    let apns: APNsClient
    let fcm: FCMClient
    let unifiedPush: UnifiedPushClient
    let clock: WallClock
    let logger: Logger
    let pollInterval: Duration
    /// Counts deliveries by provider and outcome (nil: not counted).
    let metrics: ServerMetrics?
    let batchSize = 32
    /// This worker's name on the leases it holds (random per process).
    let claimant = "push-" + UUID().uuidString
    private let wakeup = WorkerWakeup()

    init(
        repository: any PushRepository, devices: any DevicePushTokens, apns: APNsClient, fcm: FCMClient, unifiedPush: UnifiedPushClient,
        clock: WallClock, logger: Logger, pollInterval: Duration, metrics: ServerMetrics? = nil
    ) {
        self.metrics = metrics
        self.repository = repository
        self.devices = devices
        self.apns = apns
        self.fcm = fcm
        self.unifiedPush = unifiedPush
        self.clock = clock
        self.logger = logger
        self.pollInterval = pollInterval
    }

    /// Asks the worker to look at the push outbox now.
    func wake() { wakeup.wake() }

    public func run() async throws {
        await wakeup.run(pollInterval: pollInterval) { await self.drain() }
    }

    /// Sends everything due now. Returns the number of pushes tried.
    @discardableResult
    func drain() async -> Int {
        await QueueDrain<PushDelivery, PushSettlement>(name: "push outbox", batchSize: batchSize, logger: logger).run(
            claim: { try await repository.claimDue(limit: $0, claimant: claimant) },
            id: \.id,
            holdingLeases: { ids, body in await repository.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body) },
            send: { await self.deliver($0) },
            settle: { settled in
                for (status, ids) in settled { try await repository.settle(ids: ids, status: status) }
            }
        )
    }

    /// Sends one push; returns how it settled, or nil when it was scheduled for another try.
    private func deliver(_ delivery: PushDelivery) async -> PushSettlement? {
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
                return .sent
            case .tokenInvalid(let reason):
                logger.notice("push token rejected; the device falls back to polling", metadata: ["reason": .string(reason)])
                try await devices.clearPushToken(deviceId: delivery.deviceId, token: token)
                return .dropped
            case .retry(let reason, let after):
                logger.warning("push deferred", metadata: ["attempt": .stringConvertible(delivery.attempts), "reason": .string(reason)])
                try await repository.markFailed(id: delivery.id, attempts: delivery.attempts, error: reason, retryAfter: after)
                return nil
            case .rejected(let reason):
                logger.warning("push refused", metadata: ["reason": .string(reason)])
                try await repository.markFailed(id: delivery.id, attempts: .max, error: reason, retryAfter: nil)
                return nil
            }
        } catch {
            if let provider { metrics?.pushDelivery(provider: provider, outcome: .error) }
            logger.warning("push failed", metadata: ["attempt": .stringConvertible(delivery.attempts), "error": .string(String(describing: error))])
            try? await repository.markFailed(id: delivery.id, attempts: delivery.attempts, error: String(describing: error), retryAfter: nil)
            return nil
        }
    }
}
