import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import SQLKit

/// The background worker that sends webhooks from the delivery outbox with the courier's
/// guarantees: due deliveries are claimed under a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so
/// across instances there is exactly one attempt chain per delivery), the lease is renewed while a
/// slow receiver answers, every attempt carries the same `webhook-id` and is signed with every
/// current secret, a 2xx settles it, anything else is retried on the Standard Webhooks schedule
/// (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, plus up to 10 % jitter; a later `Retry-After` is
/// honoured), and after the last attempt the delivery is given up, its endpoint disabled and
/// `webhook.endpoint_disabled` appended to the audit log. It wakes at once when this instance
/// queued a delivery and polls for the rest.
package typealias WebhookService = OutboxWorker<WebhookDeliveries>

/// The webhook outbox as its worker drains it (see ``WebhookService``).
package struct WebhookDeliveries: DeliveryQueue {
    package let repository: any WebhookRepository
    package let database: any Database
    package let audit: any AuditLog
    package let httpClient: HTTPClient
    package let clock: WallClock
    package let random: RandomSource
    package let timeout: Duration
    package let metrics: ServerMetrics?

    /// The waits after the first, second, … failed attempt; the attempt after the last wait is the last one.
    package static let retrySchedule: [Duration] = [
        .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18000), .seconds(36000), .seconds(36000),
    ]

    package var name: String { "webhook outbox" }

    package func claimDue(limit: Int, claimant: String) async throws -> [WebhookDeliveryClaim] {
        try await repository.claimDue(limit: limit, claimant: claimant)
    }

    package func id(of delivery: WebhookDeliveryClaim) -> String { delivery.id }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await repository.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    /// One signed POST to the delivery's endpoint; an endpoint gone, disabled or without secrets drops it.
    package func attempt(_ claim: WebhookDeliveryClaim, logger: Logger) async -> DeliveryFate {
        var logger = logger
        logger[metadataKey: "webhook"] = .string(claim.event_id)
        logger[metadataKey: "delivery"] = .string(claim.id)
        let target: WebhookTarget
        do {
            guard let found = try await repository.target(endpointId: claim.endpoint_id), found.enabled, !found.secrets.isEmpty else {
                metrics?.webhookDelivery(.cancelled)
                return .dropped
            }
            target = found
        } catch {
            logger.warning("webhook endpoint unreadable", metadata: ["error": .string(String(describing: error))])
            return .postponed(error: "storage", after: .seconds(5))
        }
        let fate = await send(claim, to: target)
        if fate == .delivered {
            metrics?.webhookDelivery(.delivered)
            logger.info("webhook delivered", metadata: ["attempt": .stringConvertible(claim.attempts)])
        }
        return fate
    }

    /// Settles the delivered and dropped; reschedules a failed attempt on the Standard Webhooks
    /// schedule, or after the last one gives the delivery up, disables its endpoint and audits that.
    package func record(_ fates: [(delivery: WebhookDeliveryClaim, fate: DeliveryFate)], logger: Logger) async throws {
        try await repository.settle(ids: fates.filter { $0.fate == .delivered }.map(\.delivery.id), status: .delivered)
        try await repository.settle(ids: fates.filter { $0.fate == .dropped }.map(\.delivery.id), status: .cancelled)
        for (claim, fate) in fates {
            var logger = logger
            logger[metadataKey: "webhook"] = .string(claim.event_id)
            logger[metadataKey: "delivery"] = .string(claim.id)
            switch fate {
            case .delivered, .dropped: continue
            case .postponed(let error, let after):
                // Our storage, not the endpoint, failed: a flat wait that never gives the delivery up.
                try await repository.retry(id: claim.id, endpointId: claim.endpoint_id, nextAttemptAt: clock.now() + after.millis, status: nil, error: error)
            case .retry(let error, let status, let retryAfter) where claim.attempts <= Self.retrySchedule.count:
                metrics?.webhookDelivery(.retry)
                logger.notice("webhook attempt failed", metadata: ["attempt": .stringConvertible(claim.attempts), "error": .string(error)])
                let wait = Self.retrySchedule[max(claim.attempts, 1) - 1]
                let jitter = Int64(random.uniform(below: UInt32(clamping: wait.millis / 10 + 1)))
                let delay = max(wait.millis + jitter, min(retryAfter?.millis ?? 0, 36_000_000))
                try await repository.retry(id: claim.id, endpointId: claim.endpoint_id, nextAttemptAt: clock.now() + delay, status: status, error: error)
            case .retry(let error, let status, _), .refused(let error, let status):
                metrics?.webhookDelivery(.givenUp)
                logger.warning("webhook given up; endpoint disabled", metadata: ["attempt": .stringConvertible(claim.attempts), "error": .string(error)])
                let repository = self.repository, audit = self.audit
                let clientId = try await repository.target(endpointId: claim.endpoint_id)?.clientId
                try await database.transaction { sql in
                    guard try await repository.giveUp(id: claim.id, endpointId: claim.endpoint_id, status: status, error: error, in: sql) else { return }
                    try await audit.append(
                        AuditEvent(
                            WebhookEventTypes.endpointDisabled, actor: "system", clientId: clientId,
                            details: ["endpoint": claim.endpoint_id, "delivery": claim.id, "reason": "retries-exhausted"]
                        ),
                        in: sql
                    )
                }
            }
        }
    }

    /// One signed POST; no redirect is followed (the client is built with redirects disallowed).
    package func send(_ claim: WebhookDeliveryClaim, to target: WebhookTarget) async -> DeliveryFate {
        let timestamp = clock.now() / 1000
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "Tessera-Webhooks/1")
        request.headers.add(name: "webhook-id", value: claim.event_id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature", value: WebhookSignature.header(secrets: target.secrets, id: claim.event_id, timestamp: timestamp, body: claim.payload)
        )
        request.body = .bytes(ByteBuffer(string: claim.payload))
        do {
            let response = try await httpClient.execute(request, timeout: .milliseconds(timeout.millis))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            let code = Int(response.status.code)
            if (200..<300).contains(code) { return .delivered }
            let retryAfter = response.headers.first(name: "retry-after").flatMap { Int64($0) }.map { Duration.seconds($0) }
            return .retry(error: "HTTP \(code)", status: code, retryAfter: retryAfter)
        } catch {
            return .retry(error: String(describing: error))
        }
    }
}

extension OutboxWorker where Queue == WebhookDeliveries {
    /// The webhook sender over `repository`, posting through `httpClient` (redirects disallowed).
    package convenience init(
        repository: any WebhookRepository, database: any Database, audit: any AuditLog, httpClient: HTTPClient, clock: WallClock,
        random: RandomSource, logger: Logger, pollInterval: Duration, timeout: Duration, metrics: ServerMetrics?, wakeup: WorkerWakeup
    ) {
        let queue = WebhookDeliveries(
            repository: repository, database: database, audit: audit, httpClient: httpClient, clock: clock, random: random, timeout: timeout,
            metrics: metrics
        )
        self.init(queue: queue, logger: logger, pollInterval: pollInterval, wakeup: wakeup)
    }
}
