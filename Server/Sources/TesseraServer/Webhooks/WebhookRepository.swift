import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore

/// One event to send, as queued inside the event's transaction.
struct WebhookEvent: Sendable {
    /// The Standard Webhooks message ID (`msg_…`), the same for every endpoint and every retry.
    var id: String
    var type: String
    /// The JSON body (`{"type", "timestamp", "data"}`): IDs, and the client and user keys beside them.
    var payload: String
}

/// A claimed delivery, as the worker sends it.
struct WebhookDeliveryClaim: Sendable, Decodable {
    var id: String
    var event_id: String
    var endpoint_id: String
    var event_type: String
    var payload: String
    var attempts: Int
}

/// Where and with which secrets a delivery is sent.
struct WebhookTarget: Sendable {
    var endpointId: String
    var clientId: String
    var url: String
    var enabled: Bool
    /// The current secret first, then the previous one while its overlap lasts.
    var secrets: [String]
}

/// An endpoint row as stored (the secrets stay sealed).
struct WebhookEndpointRecord: Sendable {
    var id: String
    var clientId: String
    var url: String
    var eventTypes: [String]
    var enabled: Bool
    var failureCount: Int
    var disabledReason: String?
    var previousSecretExpiresAt: Int64?
    var createdAt: Int64
}

/// The webhooks domain's storage, the one owner of `webhook_endpoints` and `webhook_deliveries`.
/// Another domain only queues, inside its own transaction (``enqueue(_:clientId:in:)``, through
/// ``WebhookAuditLog``), so a delivery exists exactly when its event does. Claims and lease renewals
/// are the shared ``LeasedQueue``'s; the retry schedule is the Standard Webhooks one (``WebhookService``).
protocol WebhookRepository: Sendable {
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
enum WebhookSettlement: String, Sendable {
    case delivered
    case cancelled
}

/// ``WebhookRepository`` over SQLKit (SQLite and PostgreSQL).
struct SQLWebhookRepository: WebhookRepository {
    let database: any Database
    /// Seals the endpoints' secrets (``ServerKeys/webhookKey``).
    let key: SymmetricKey
    let clock: WallClock
    let random: RandomSource
    var lease: Duration = .seconds(30)

    var queue: LeasedQueue { LeasedQueue(database: database, table: "webhook_deliveries", clock: clock, lease: lease, maxAttempts: .max) }

    private static let endpointColumns =
        "id, client_id, url, event_types, enabled, failure_count, disabled_reason, previous_secret_expires_at, created_at"

    func subscribers(clientId: String, in sql: any SQLDatabase) async throws -> [(endpointId: String, eventTypes: [String])] {
        try await sql.raw(
            "SELECT id, event_types FROM webhook_endpoints WHERE client_id = \(bind: clientId) AND enabled = 1"
        ).all().map { (try $0.decode(column: "id", as: String.self), Self.types(try $0.decode(column: "event_types", as: String.self))) }
    }

    func enqueue(_ event: WebhookEvent, endpointId: String) async throws -> String {
        try await database.withSQL { sql in try await enqueue(event, endpointId: endpointId, in: sql) }
    }

    func enqueue(_ event: WebhookEvent, endpointId: String, in sql: any SQLDatabase) async throws -> String {
        let id = random.identifier(prefix: "whd_")
        let now = clock.now()
        try await sql.raw(
            """
            INSERT INTO webhook_deliveries (id, event_id, endpoint_id, event_type, payload, status, attempts, next_attempt_at, created_at)
            VALUES (\(bind: id), \(bind: event.id), \(bind: endpointId), \(bind: event.type), \(bind: event.payload), 'pending', 0, \(bind: now), \(bind: now))
            """
        ).run()
        return id
    }

    func claimDue(limit: Int, claimant: String) async throws -> [WebhookDeliveryClaim] {
        try await queue.claimDue(
            limit: limit, claimant: claimant, returning: "id, event_id, endpoint_id, event_type, payload, attempts", as: WebhookDeliveryClaim.self
        )
    }

    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await queue.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    func target(endpointId: String) async throws -> WebhookTarget? {
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT client_id, url, enabled, sealed_secret, sealed_previous_secret, previous_secret_expires_at
                FROM webhook_endpoints WHERE id = \(bind: endpointId)
                """
            ).first()
        }
        guard let row else { return nil }
        var secrets: [String] = []
        if let current = open(try row.decode(column: "sealed_secret", as: String.self), endpointId: endpointId) { secrets.append(current) }
        if let sealed = try row.decode(column: "sealed_previous_secret", as: String?.self),
           let until = try row.decode(column: "previous_secret_expires_at", as: Int64?.self), until > clock.now(),
           let previous = open(sealed, endpointId: endpointId) {
            secrets.append(previous)
        }
        return WebhookTarget(
            endpointId: endpointId, clientId: try row.decode(column: "client_id", as: String.self), url: try row.decode(column: "url", as: String.self),
            enabled: try row.decode(column: "enabled", as: Int.self) != 0, secrets: secrets
        )
    }

    func settle(ids: [String], status: WebhookSettlement) async throws {
        guard !ids.isEmpty else { return }
        let now = clock.now()
        try await database.withSQL { sql in
            try await sql.update("webhook_deliveries")
                .set("status", to: status.rawValue).set("delivered_at", to: status == .delivered ? now : nil)
                .set(SQLColumn("locked_until"), to: SQLLiteral.null).set(SQLColumn("locked_by"), to: SQLLiteral.null)
                .where("id", .in, ids)
                .run()
            if status == .delivered {
                try await sql.raw(
                    """
                    UPDATE webhook_endpoints SET failure_count = 0 WHERE failure_count > 0
                    AND id IN (SELECT endpoint_id FROM webhook_deliveries WHERE id IN \(SQLBind.group(ids)))
                    """
                ).run()
            }
        }
    }

    func retry(id: String, endpointId: String, nextAttemptAt: Int64, status: Int?, error: String) async throws {
        let message = String(error.prefix(500))
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE webhook_deliveries SET next_attempt_at = \(bind: nextAttemptAt), locked_until = NULL, locked_by = NULL,
                last_status = \(bind: status), last_error = \(bind: message) WHERE id = \(bind: id)
                """
            ).run()
            try await sql.raw("UPDATE webhook_endpoints SET failure_count = failure_count + 1 WHERE id = \(bind: endpointId)").run()
        }
    }

    func giveUp(id: String, endpointId: String, status: Int?, error: String, in sql: any SQLDatabase) async throws -> Bool {
        let message = String(error.prefix(500))
        try await sql.raw(
            """
            UPDATE webhook_deliveries SET status = 'failed', locked_until = NULL, locked_by = NULL,
            last_status = \(bind: status), last_error = \(bind: message) WHERE id = \(bind: id)
            """
        ).run()
        return try await sql.raw(
            """
            UPDATE webhook_endpoints SET enabled = 0, disabled_reason = 'retries-exhausted', failure_count = failure_count + 1,
            updated_at = \(bind: clock.now()) WHERE id = \(bind: endpointId) AND enabled = 1 RETURNING id
            """
        ).first() != nil
    }

    func create(_ record: WebhookEndpointRecord, secret: String) async throws {
        let sealed = try seal(secret, endpointId: record.id)
        try await database.withSQL { sql in
            try await sql.raw(
                """
                INSERT INTO webhook_endpoints (id, client_id, url, event_types, sealed_secret, enabled, failure_count, created_at, updated_at)
                VALUES (\(bind: record.id), \(bind: record.clientId), \(bind: record.url), \(bind: Self.text(record.eventTypes)), \(bind: sealed),
                        \(bind: record.enabled ? 1 : 0), 0, \(bind: record.createdAt), \(bind: record.createdAt))
                """
            ).run()
        }
    }

    func endpoint(id: String) async throws -> WebhookEndpointRecord? {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.endpointColumns) FROM webhook_endpoints WHERE id = \(bind: id)").first().map(Self.decode)
        }
    }

    func endpoints(clientId: String) async throws -> [WebhookEndpointRecord] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: Self.endpointColumns) FROM webhook_endpoints WHERE client_id = \(bind: clientId) ORDER BY created_at, id"
            ).all().map(Self.decode)
        }
    }

    func update(id: String, url: String?, eventTypes: [String]?, enabled: Bool?) async throws -> Bool {
        var statement: SQLQueryString = "UPDATE webhook_endpoints SET updated_at = \(bind: clock.now())"
        if let url { statement = statement + ", url = \(bind: url)" }
        if let eventTypes { statement = statement + ", event_types = \(bind: Self.text(eventTypes))" }
        if let enabled {
            statement = statement + (enabled
                ? ", enabled = 1, failure_count = 0, disabled_reason = NULL"
                : ", enabled = 0, disabled_reason = 'admin'")
        }
        statement = statement + " WHERE id = \(bind: id) RETURNING id"
        let final = statement
        return try await database.withSQL { sql in try await sql.raw(final).first() != nil }
    }

    func rotate(id: String, secret: String, previousUntil: Int64) async throws -> Bool {
        let sealed = try seal(secret, endpointId: id)
        return try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE webhook_endpoints SET sealed_previous_secret = sealed_secret, previous_secret_expires_at = \(bind: previousUntil),
                sealed_secret = \(bind: sealed), updated_at = \(bind: clock.now()) WHERE id = \(bind: id) RETURNING id
                """
            ).first() != nil
        }
    }

    func delete(id: String) async throws -> Bool {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM webhook_deliveries WHERE endpoint_id = \(bind: id)").run()
            return try await sql.raw("DELETE FROM webhook_endpoints WHERE id = \(bind: id) RETURNING id").first() != nil
        }
    }

    private static let deliveryColumns =
        "id, event_id, event_type, status, attempts, last_status, last_error, next_attempt_at, created_at, delivered_at"

    func deliveries(endpointId: String, limit: Int, before: (Int64, String)?) async throws -> [WebhookDeliveryView] {
        var statement: SQLQueryString = "SELECT \(unsafeRaw: Self.deliveryColumns) FROM webhook_deliveries WHERE endpoint_id = \(bind: endpointId)"
        if let before {
            statement = statement + " AND (created_at < \(bind: before.0) OR (created_at = \(bind: before.0) AND id < \(bind: before.1)))"
        }
        statement = statement + " ORDER BY created_at DESC, id DESC LIMIT \(bind: limit)"
        let final = statement
        return try await database.read { sql in try await sql.raw(final).all().map(Self.decodeDelivery) }
    }

    func delivery(id: String) async throws -> WebhookDeliveryView? {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.deliveryColumns) FROM webhook_deliveries WHERE id = \(bind: id)").first().map(Self.decodeDelivery)
        }
    }

    func redeliver(id: String, endpointId: String) async throws -> Bool? {
        let now = clock.now()
        return try await database.transaction { sql in
            guard try await sql.raw(
                "SELECT id FROM webhook_deliveries WHERE id = \(bind: id) AND endpoint_id = \(bind: endpointId)"
            ).first() != nil else { return nil }
            return try await sql.raw(
                """
                UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = \(bind: now), delivered_at = NULL
                WHERE id = \(bind: id) AND (locked_until IS NULL OR locked_until <= \(bind: now)) RETURNING id
                """
            ).first() != nil
        }
    }

    func purge(settledBefore cutoff: Int64) async throws {
        try await database.withSQL { sql in
            try await sql.raw("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < \(bind: cutoff)").run()
        }
    }

    // MARK: Encoding

    /// Event types as stored: space-separated.
    static func text(_ types: [String]) -> String { types.joined(separator: " ") }
    static func types(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    private func seal(_ secret: String, endpointId: String) throws -> String {
        try Sealing.seal(Data(secret.utf8), using: key, authenticating: Data("webhook:\(endpointId)".utf8)).base64EncodedString()
    }

    private func open(_ sealed: String, endpointId: String) -> String? {
        guard let combined = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: combined),
              let opened = try? AES.GCM.open(box, using: key, authenticating: Data("webhook:\(endpointId)".utf8))
        else { return nil }
        return String(decoding: opened, as: UTF8.self)
    }

    private static func decode(_ row: any SQLRow) throws -> WebhookEndpointRecord {
        WebhookEndpointRecord(
            id: try row.decode(column: "id", as: String.self), clientId: try row.decode(column: "client_id", as: String.self),
            url: try row.decode(column: "url", as: String.self), eventTypes: types(try row.decode(column: "event_types", as: String.self)),
            enabled: try row.decode(column: "enabled", as: Int.self) != 0, failureCount: try row.decode(column: "failure_count", as: Int.self),
            disabledReason: try row.decode(column: "disabled_reason", as: String?.self),
            previousSecretExpiresAt: try row.decode(column: "previous_secret_expires_at", as: Int64?.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self)
        )
    }

    private static func decodeDelivery(_ row: any SQLRow) throws -> WebhookDeliveryView {
        let status = try row.decode(column: "status", as: String.self)
        return WebhookDeliveryView(
            id: try row.decode(column: "id", as: String.self), eventId: try row.decode(column: "event_id", as: String.self),
            eventType: try row.decode(column: "event_type", as: String.self), status: status,
            attempts: try row.decode(column: "attempts", as: Int.self), lastStatus: try row.decode(column: "last_status", as: Int?.self),
            lastError: try row.decode(column: "last_error", as: String?.self),
            nextAttemptAt: status == "pending" ? try row.decode(column: "next_attempt_at", as: Int64.self) : nil,
            createdAt: try row.decode(column: "created_at", as: Int64.self), deliveredAt: try row.decode(column: "delivered_at", as: Int64?.self)
        )
    }
}
