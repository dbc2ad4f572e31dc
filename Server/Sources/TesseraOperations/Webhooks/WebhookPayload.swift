import Foundation

/// The body of a webhook, in the Standard Webhooks shape: `{"type", "timestamp", "data"}`. `data`
/// holds the event's IDs, actor and details as the audit log records them, and the client key and
/// user key the app and the operator know the client and the user by: never an e-mail address, a
/// phone number, a name, a code, a token or a secret.
package struct WebhookPayload: Encodable {
    package struct EventData: Encodable {
        package var actor: String?
        /// The client's key (`tck_…`), beside its internal `clientId`.
        package var clientKey: String?
        package var clientId: String?
        /// The user's key (the app's own name for the user), beside the internal `userId`.
        package var userKey: String?
        package var userId: String?
        package var deviceId: String?
        package var sessionId: String?
        package var endpointId: String?
        package var details: [String: String]?
    }

    package var type: String
    /// ISO 8601 with milliseconds, UTC.
    package var timestamp: String
    package var data: EventData

    /// The message of an audit event, naming its client and user also by `clientKey` and `userKey`.
    package static func event(_ event: AuditEvent, clientKey: String?, userKey: String?, id: String, time: Int64) -> WebhookEvent {
        let payload = WebhookPayload(
            type: event.type, timestamp: iso8601(time),
            data: EventData(
                actor: event.actor, clientKey: clientKey, clientId: event.clientId, userKey: userKey, userId: event.userId,
                deviceId: event.deviceId, sessionId: event.sessionId, details: event.details.isEmpty ? nil : event.details
            )
        )
        return WebhookEvent(id: id, type: event.type, payload: payload.json)
    }

    /// The `webhook.test` message for one endpoint.
    package static func test(endpointId: String, clientId: String, clientKey: String?, id: String, time: Int64) -> WebhookEvent {
        let payload = WebhookPayload(
            type: WebhookEventTypes.test, timestamp: iso8601(time),
            data: EventData(actor: "admin", clientKey: clientKey, clientId: clientId, endpointId: endpointId)
        )
        return WebhookEvent(id: id, type: WebhookEventTypes.test, payload: payload.json)
    }

    /// Sorted keys, no whitespace.
    package var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    package static func iso8601(_ millis: Int64) -> String {
        Date(timeIntervalSince1970: Double(millis) / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
