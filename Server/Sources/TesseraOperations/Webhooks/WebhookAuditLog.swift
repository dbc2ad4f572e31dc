import Foundation
import SQLKit

/// The audit log that also queues webhooks: each event that names a client is queued for that client's enabled
/// endpoints subscribed to its type, and the wrapped log appends the events, all inside the change's transaction,
/// so no event is lost and none is sent for a change that rolled back. Per append it costs one indexed read of
/// `webhook_endpoints` per client named (one in practice) unless the repository's ``WebhookSubscriberCache`` has it
/// (`webhooks.endpointCacheMs`), and nothing else when the client has no endpoint; with a subscriber, one read of
/// the client's key and one of the user's key per event sent.
package struct WebhookAuditLog: AuditLog {
    package let base: any AuditLog
    package let webhooks: any WebhookRepository
    /// Names the event's client and user by their keys in the message (nil: IDs only).
    package var subjects: (any AuditSubjectKeys)? = nil
    package let clock: WallClock
    package let random: RandomSource
    /// Wakes this instance's ``WebhookService`` (after a queued delivery).
    package let wake: @Sendable () -> Void

    package init(
        base: any AuditLog,
        webhooks: any WebhookRepository,
        subjects: (any AuditSubjectKeys)? = nil,
        clock: WallClock,
        random: RandomSource,
        wake: @escaping @Sendable () -> Void
    ) {
        self.base = base
        self.webhooks = webhooks
        self.subjects = subjects
        self.clock = clock
        self.random = random
        self.wake = wake
    }

    /// The wrapped log's signal, so the console's live view still wakes on this process's appends.
    package var appended: AuditAppendSignal? { base.appended }

    /// The deliveries are queued first and the events appended last: the append takes the audit head, a row that
    /// every audited change of the deployment updates (on PostgreSQL, locked until COMMIT), so nothing else of this
    /// change should run after it. Both are in the caller's transaction, so the order changes nothing else.
    package func append(_ events: [AuditEvent], in sql: any SQLDatabase) async throws {
        let queued = try await queueDeliveries(of: events, in: sql)
        try await base.append(events, in: sql)
        if queued { wake() }
    }

    /// The wrapped log's composed append when no endpoint of the events' clients subscribes to one of them (read as
    /// ``append(_:in:)`` reads them); nil when one does, so the caller appends in a transaction, which queues it.
    package func composedAppend(_ events: [AuditEvent], in sql: any SQLDatabase) async throws -> ComposedWrite? {
        let clientIds = Self.clientIds(of: events)
        for clientId in clientIds {
            let subscribers = try await webhooks.subscribers(clientId: clientId, in: sql)
            guard !subscribers.isEmpty else { continue }
            for event in events where event.clientId == clientId {
                if subscribers.contains(where: { WebhookEventTypes.matches($0.eventTypes, event.type) }) { return nil }
            }
        }
        return try await base.composedAppend(events, in: sql)
    }

    /// The clients the events name, each once, in the order of their first event.
    private static func clientIds(of events: [AuditEvent]) -> [String] {
        var clientIds: [String] = []
        for case let clientId? in events.map(\.clientId) where !clientIds.contains(clientId) { clientIds.append(clientId) }
        return clientIds
    }

    /// Queues the events for their clients' subscribed endpoints; true when any delivery was queued.
    private func queueDeliveries(of events: [AuditEvent], in sql: any SQLDatabase) async throws -> Bool {
        let clientIds = Self.clientIds(of: events)
        var queued = false
        for clientId in clientIds {
            let subscribers = try await webhooks.subscribers(clientId: clientId, in: sql)
            guard !subscribers.isEmpty else { continue }
            let time = clock.now()
            var clientKey: String??
            for event in events where event.clientId == clientId {
                let matching = subscribers.filter { WebhookEventTypes.matches($0.eventTypes, event.type) }
                guard !matching.isEmpty else { continue }
                if clientKey == nil { clientKey = .some(try await subjects?.clientKeys(ids: [clientId], in: sql)[clientId]) }
                var userKey: String?
                if let userId = event.userId { userKey = try await subjects?.userKeys(ids: [userId], in: sql)[userId] }
                let message = WebhookPayload.event(
                    event, clientKey: clientKey ?? nil, userKey: userKey, id: random.identifier(prefix: "msg_"), time: time
                )
                for subscriber in matching { try await webhooks.enqueue(message, endpointId: subscriber.endpointId, in: sql) }
                queued = true
            }
        }
        return queued
    }

    package func entries(_ query: AuditQuery, in sql: any SQLDatabase) async throws -> [AuditEntry] { try await base.entries(query, in: sql) }
    package func head(in sql: any SQLDatabase) async throws -> AuditHead { try await base.head(in: sql) }
    package var sequencer: AuditSequencer? { base.sequencer }
    package func insert(_ checkpoint: AuditCheckpoint, in sql: any SQLDatabase) async throws { try await base.insert(checkpoint, in: sql) }
    package func lastCheckpointSeq(in sql: any SQLDatabase) async throws -> Int64? { try await base.lastCheckpointSeq(in: sql) }
    package func checkpoints(in sql: any SQLDatabase) async throws -> [AuditCheckpoint] { try await base.checkpoints(in: sql) }
}

