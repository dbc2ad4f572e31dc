import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
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
public final class WebhookService: Service, Sendable {
    let repository: any WebhookRepository
    let database: any Database
    let audit: any AuditLog
    let httpClient: HTTPClient
    let clock: WallClock
    let random: RandomSource
    let logger: Logger
    let pollInterval: Duration
    let timeout: Duration
    let metrics: ServerMetrics?
    let batchSize = 32
    /// This worker's name on the leases it holds (random per process).
    let claimant = "webhooks-" + UUID().uuidString
    let wakeup: WorkerWakeup

    /// The waits after the first, second, … failed attempt; the attempt after the last wait is the last one.
    static let retrySchedule: [Duration] = [
        .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18000), .seconds(36000), .seconds(36000),
    ]

    init(
        repository: any WebhookRepository, database: any Database, audit: any AuditLog, httpClient: HTTPClient, clock: WallClock,
        random: RandomSource, logger: Logger, pollInterval: Duration, timeout: Duration, metrics: ServerMetrics?, wakeup: WorkerWakeup
    ) {
        self.repository = repository
        self.database = database
        self.audit = audit
        self.httpClient = httpClient
        self.clock = clock
        self.random = random
        self.logger = logger
        self.pollInterval = pollInterval
        self.timeout = timeout
        self.metrics = metrics
        self.wakeup = wakeup
    }

    /// Asks the worker to look at the outbox now.
    func wake() { wakeup.wake() }

    public func run() async throws {
        await wakeup.run(pollInterval: pollInterval) { await self.drain() }
    }

    /// Sends everything due now. Returns the number of deliveries tried.
    @discardableResult
    func drain() async -> Int {
        await QueueDrain<WebhookDeliveryClaim, WebhookSettlement>(name: "webhook outbox", batchSize: batchSize, logger: logger).run(
            claim: { try await repository.claimDue(limit: $0, claimant: claimant) },
            id: \.id,
            holdingLeases: { ids, body in await repository.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body) },
            send: { await self.deliver($0) },
            settle: { settled in
                for (status, ids) in settled { try await repository.settle(ids: ids, status: status) }
            }
        )
    }

    /// How one attempt went.
    enum Attempt: Sendable, Equatable {
        case delivered
        case failed(status: Int?, error: String, retryAfter: Duration?)
    }

    /// Sends one delivery; returns how it settled, or nil when it was scheduled for another try or given up.
    private func deliver(_ claim: WebhookDeliveryClaim) async -> WebhookSettlement? {
        var logger = logger
        logger[metadataKey: "webhook"] = .string(claim.event_id)
        logger[metadataKey: "delivery"] = .string(claim.id)
        let target: WebhookTarget
        do {
            guard let found = try await repository.target(endpointId: claim.endpoint_id), found.enabled, !found.secrets.isEmpty else {
                metrics?.webhookDelivery(.cancelled)
                return .cancelled
            }
            target = found
        } catch {
            logger.warning("webhook endpoint unreadable", metadata: ["error": .string(String(describing: error))])
            try? await repository.retry(id: claim.id, endpointId: claim.endpoint_id, nextAttemptAt: clock.now() + 5000, status: nil, error: "storage")
            return nil
        }
        let attempt = await send(claim, to: target)
        switch attempt {
        case .delivered:
            metrics?.webhookDelivery(.delivered)
            logger.info("webhook delivered", metadata: ["attempt": .stringConvertible(claim.attempts)])
            return .delivered
        case .failed(let status, let error, let retryAfter):
            do {
                if claim.attempts > Self.retrySchedule.count {
                    metrics?.webhookDelivery(.givenUp)
                    logger.warning("webhook given up; endpoint disabled", metadata: ["attempt": .stringConvertible(claim.attempts), "error": .string(error)])
                    let repository = self.repository, audit = self.audit
                    try await database.transaction { sql in
                        guard try await repository.giveUp(id: claim.id, endpointId: target.endpointId, status: status, error: error, in: sql) else { return }
                        try await audit.append(
                            AuditEvent(
                                WebhookEventTypes.endpointDisabled, actor: "system", clientId: target.clientId,
                                details: ["endpoint": target.endpointId, "delivery": claim.id, "reason": "retries-exhausted"]
                            ),
                            in: sql
                        )
                    }
                } else {
                    metrics?.webhookDelivery(.retry)
                    logger.notice("webhook attempt failed", metadata: ["attempt": .stringConvertible(claim.attempts), "error": .string(error)])
                    let wait = Self.retrySchedule[max(claim.attempts, 1) - 1]
                    let jitter = Int64(random.uniform(below: UInt32(clamping: wait.millis / 10 + 1)))
                    let delay = max(wait.millis + jitter, min(retryAfter?.millis ?? 0, 36_000_000))
                    try await repository.retry(id: claim.id, endpointId: target.endpointId, nextAttemptAt: clock.now() + delay, status: status, error: error)
                }
            } catch {
                logger.error("recording a webhook attempt failed", metadata: ["error": .string(String(describing: error))])
            }
            return nil
        }
    }

    /// One signed POST; no redirect is followed (the client is built with redirects disallowed).
    func send(_ claim: WebhookDeliveryClaim, to target: WebhookTarget) async -> Attempt {
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
            return .failed(status: code, error: "HTTP \(code)", retryAfter: retryAfter)
        } catch {
            return .failed(status: nil, error: String(describing: error), retryAfter: nil)
        }
    }
}
