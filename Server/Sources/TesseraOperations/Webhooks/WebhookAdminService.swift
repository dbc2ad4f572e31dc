import Foundation
import TesseraCore

/// The admin side of webhooks: a client's endpoints (the `whsec_…` secret shown once, at creation
/// and at each rotation), their delivery history, a test event and a redelivery. URLs are checked
/// here: http(s) only, no user or password in them, and in production https unless the host is a
/// loopback address or `webhooks.allowHttp` is set.
public struct WebhookAdminService: Sendable {
    package let repository: any WebhookRepository
    package let clients: ClientService
    package let clock: WallClock
    package let random: RandomSource
    /// Whether plain http is refused for non-loopback hosts.
    package let requireHTTPS: Bool
    /// How long the previous secret still signs after a rotation.
    package var rotationOverlap: Duration = .seconds(86400)
    /// Wakes this instance's ``WebhookService`` after a test event or a redelivery.
    package let wake: @Sendable () -> Void

    package init(
        repository: any WebhookRepository,
        clients: ClientService,
        clock: WallClock,
        random: RandomSource,
        requireHTTPS: Bool,
        rotationOverlap: Duration = .seconds(86400),
        wake: @escaping @Sendable () -> Void
    ) {
        self.repository = repository
        self.clients = clients
        self.clock = clock
        self.random = random
        self.requireHTTPS = requireHTTPS
        self.rotationOverlap = rotationOverlap
        self.wake = wake
    }

    /// Creates an endpoint for the client; the answer holds its secret, never shown again.
    public func create(clientKey: String, _ request: CreateWebhookRequest) async throws -> WebhookEndpointWithSecret {
        let client = try await clients.client(clientKey: clientKey)
        let record = WebhookEndpointRecord(
            id: random.identifier(prefix: "whe_"), clientId: client.id, url: try validURL(request.url), eventTypes: try Self.validTypes(request.eventTypes),
            enabled: true, failureCount: 0, disabledReason: nil, previousSecretExpiresAt: nil, createdAt: clock.now()
        )
        let secret = WebhookSignature.newSecret(random)
        try await repository.create(record, secret: secret)
        return WebhookEndpointWithSecret(endpoint: Self.view(record, clientKey: client.clientKey), secret: secret)
    }

    /// The client's endpoints (never a secret).
    public func list(clientKey: String) async throws -> WebhookEndpointList {
        let client = try await clients.client(clientKey: clientKey)
        return WebhookEndpointList(endpoints: try await repository.endpoints(clientId: client.id).map { Self.view($0, clientKey: client.clientKey) })
    }

    /// One endpoint.
    public func endpoint(_ id: String) async throws -> WebhookEndpointView {
        let record = try await record(id)
        let clientKey = try await clients.list().first { $0.id == record.clientId }?.clientKey ?? ""
        return Self.view(record, clientKey: clientKey)
    }

    /// Changes the URL, the event types or the enabled flag.
    public func update(_ id: String, _ request: UpdateWebhookRequest) async throws -> WebhookEndpointView {
        let url = try request.url.map(validURL)
        let types = try request.eventTypes.map(Self.validTypes)
        guard try await repository.update(id: id, url: url, eventTypes: types, enabled: request.enabled) else { throw Self.unknownEndpoint }
        return try await endpoint(id)
    }

    /// A new secret (shown once); the previous one still signs for ``rotationOverlap``.
    public func rotate(_ id: String) async throws -> WebhookEndpointWithSecret {
        let secret = WebhookSignature.newSecret(random)
        guard try await repository.rotate(id: id, secret: secret, previousUntil: clock.now() + rotationOverlap.millis) else { throw Self.unknownEndpoint }
        return WebhookEndpointWithSecret(endpoint: try await endpoint(id), secret: secret)
    }

    /// Deletes the endpoint and its delivery history.
    public func delete(_ id: String) async throws {
        guard try await repository.delete(id: id) else { throw Self.unknownEndpoint }
    }

    /// The endpoint's deliveries, newest first.
    public func deliveries(_ id: String, limit: Int, before: String?) async throws -> WebhookDeliveryPage {
        _ = try await record(id)
        var cursor: (Int64, String)?
        if let before {
            let parts = before.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, let time = Int64(parts[0]) else { throw AppError.invalidField("before", "before must be a nextBefore value") }
            cursor = (time, String(parts[1]))
        }
        let page = try await repository.deliveries(endpointId: id, limit: limit, before: cursor)
        let next = page.count == limit ? page.last.map { "\($0.createdAt).\($0.id)" } : nil
        return WebhookDeliveryPage(deliveries: page, nextBefore: next)
    }

    /// Queues a `webhook.test` event for this endpoint only; returns its delivery.
    public func sendTest(_ id: String) async throws -> WebhookDeliveryView {
        let record = try await record(id)
        let clientKey = try await clients.list().first { $0.id == record.clientId }?.clientKey
        let event = WebhookPayload.test(
            endpointId: id, clientId: record.clientId, clientKey: clientKey, id: random.identifier(prefix: "msg_"), time: clock.now()
        )
        let deliveryId = try await repository.enqueue(event, endpointId: id)
        wake()
        return try await delivery(deliveryId)
    }

    /// Queues one delivery again, with the same `webhook-id`.
    public func redeliver(endpointId: String, deliveryId: String) async throws -> WebhookDeliveryView {
        guard let queued = try await repository.redeliver(id: deliveryId, endpointId: endpointId) else {
            throw AppError.webhookDeliveryUnknown(detail: "No such delivery for this endpoint")
        }
        guard queued else { throw AppError.conflict("The delivery is being sent now") }
        wake()
        return try await delivery(deliveryId)
    }

    private func delivery(_ id: String) async throws -> WebhookDeliveryView {
        guard let view = try await repository.delivery(id: id) else { throw AppError.webhookDeliveryUnknown() }
        return view
    }

    private func record(_ id: String) async throws -> WebhookEndpointRecord {
        guard let record = try await repository.endpoint(id: id) else { throw Self.unknownEndpoint }
        return record
    }

    package static let unknownEndpoint = AppError.webhookEndpointUnknown()

    /// The URL, checked: http(s), a host, no credentials, at most 2000 characters; https in production
    /// unless loopback or allowed.
    package func validURL(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= 2000, let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty
        else { throw Self.invalidURL("the URL must be an absolute http(s) URL") }
        guard components.user == nil, components.password == nil else { throw Self.invalidURL("the URL must not hold a user or password") }
        if scheme == "http", requireHTTPS, !LoopbackHost.contains(host) {
            throw Self.invalidURL("the URL must be https (plain http only to a loopback host, or with webhooks.allowHttp)")
        }
        return trimmed
    }

    private static func invalidURL(_ detail: String) -> AppError { AppError.webhookURLInvalid(detail, field: "url") }

    package static func validTypes(_ types: [String]) throws -> [String] {
        guard !types.isEmpty, types.count <= 50 else {
            throw AppError.webhookEventTypeUnknown("eventTypes must name 1 to 50 event types", field: "eventTypes")
        }
        for type in types where !WebhookEventTypes.isValid(type) {
            throw AppError.webhookEventTypeUnknown("unknown event type \(String(type.prefix(80)))", field: "eventTypes")
        }
        var unique: [String] = []
        for type in types where !unique.contains(type) { unique.append(type) }
        return unique
    }

    package static func view(_ record: WebhookEndpointRecord, clientKey: String) -> WebhookEndpointView {
        WebhookEndpointView(
            id: record.id, clientKey: clientKey, url: record.url, eventTypes: record.eventTypes, enabled: record.enabled,
            failureCount: record.failureCount, disabledReason: record.disabledReason, previousSecretExpiresAt: record.previousSecretExpiresAt,
            createdAt: record.createdAt
        )
    }
}
