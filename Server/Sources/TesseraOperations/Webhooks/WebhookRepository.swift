import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore

/// One event to send, as queued inside the event's transaction.
package struct WebhookEvent: Sendable {
    /// The Standard Webhooks message ID (`msg_…`), the same for every endpoint and every retry.
    package var id: String
    package var type: String
    /// The JSON body (`{"type", "timestamp", "data"}`): IDs, and the client and user keys beside them.
    package var payload: String
}

/// A claimed delivery, as the worker sends it.
package struct WebhookDeliveryClaim: Sendable, Decodable {
    package var id: String
    package var event_id: String
    package var endpoint_id: String
    package var event_type: String
    package var payload: String
    package var attempts: Int
}

/// Where and with which secrets a delivery is sent.
package struct WebhookTarget: Sendable {
    package var endpointId: String
    package var clientId: String
    package var url: String
    package var enabled: Bool
    /// The current secret first, then the previous one while its overlap lasts.
    package var secrets: [String]
}

/// An endpoint row as stored (the secrets stay sealed).
package struct WebhookEndpointRecord: Sendable {
    package var id: String
    package var clientId: String
    package var url: String
    package var eventTypes: [String]
    package var enabled: Bool
    package var failureCount: Int
    package var disabledReason: String?
    package var previousSecretExpiresAt: Int64?
    package var createdAt: Int64
}

/// The webhooks domain's storage, the one owner of `webhook_endpoints` and `webhook_deliveries`.
/// Another domain only queues, inside its own transaction (``enqueue(_:clientId:in:)``, through
/// ``WebhookAuditLog``), so a delivery exists exactly when its event does. Claims and lease renewals
/// are the shared ``LeasedQueue``'s; the retry schedule is the Standard Webhooks one (``WebhookService``).
package protocol WebhookRepository: Sendable {
    /// The client's enabled endpoints with the event types each subscribed to (one indexed read,
    /// inside the caller's transaction).
    func subscribers(clientId: String, in sql: any SQLDatabase) async throws -> [(endpointId: String, eventTypes: [String])]
    /// Queues `event` for `endpointId` inside the caller's transaction; returns the delivery's ID.
    @discardableResult
    func enqueue(_ event: WebhookEvent, endpointId: String, in sql: any SQLDatabase) async throws -> String
    /// Queues `event` for one endpoint, subscribed or not (the test event).
    func enqueue(_ event: WebhookEvent, endpointId: String) async throws -> String
    /// Reserves up to `limit` due deliveries for the worker `claimant` (counting the attempt).
    func claimDue(limit: Int, claimant: String) async throws -> [WebhookDeliveryClaim]
    /// Runs `body` while renewing the leases of `ids` for `claimant`.
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T
    /// The endpoint's URL and unsealed secrets; nil when it is gone.
    func target(endpointId: String) async throws -> WebhookTarget?
    /// Records deliveries that need no more tries: `delivered` (2xx) or `cancelled` (endpoint disabled or gone).
    func settle(ids: [String], status: WebhookSettlement) async throws
    /// Schedules another try at `nextAttemptAt` and counts the endpoint's failure.
    func retry(id: String, endpointId: String, nextAttemptAt: Int64, status: Int?, error: String) async throws
    /// Gives a delivery up (status `failed`) and disables its endpoint, inside the caller's transaction;
    /// true when this call disabled the endpoint.
    func giveUp(id: String, endpointId: String, status: Int?, error: String, in sql: any SQLDatabase) async throws -> Bool

    /// Stores a new endpoint with its secret sealed.
    func create(_ record: WebhookEndpointRecord, secret: String) async throws
    func endpoint(id: String) async throws -> WebhookEndpointRecord?
    func endpoints(clientId: String) async throws -> [WebhookEndpointRecord]
    /// Changes the URL, the event types or the enabled flag (enabling clears the failure count and reason).
    func update(id: String, url: String?, eventTypes: [String]?, enabled: Bool?) async throws -> Bool
    /// Makes `secret` the current one and keeps the current one as the previous until `previousUntil`.
    func rotate(id: String, secret: String, previousUntil: Int64) async throws -> Bool
    /// Deletes the endpoint and its deliveries.
    func delete(id: String) async throws -> Bool
    /// Deliveries of an endpoint, newest first, before the cursor `before` (`<createdAt>.<id>`).
    func deliveries(endpointId: String, limit: Int, before: (Int64, String)?) async throws -> [WebhookDeliveryView]
    /// Queues a delivery again with the same message ID (not one that is being sent now). Nil: no such
    /// delivery for the endpoint; false: it is being sent.
    func redeliver(id: String, endpointId: String) async throws -> Bool?
    /// One delivery.
    func delivery(id: String) async throws -> WebhookDeliveryView?
    /// Deletes settled deliveries created before `cutoff`.
    func purge(settledBefore cutoff: Int64) async throws
}

/// How a delivery ended without another try.
package enum WebhookSettlement: String, Sendable {
    case delivered
    case cancelled
}
