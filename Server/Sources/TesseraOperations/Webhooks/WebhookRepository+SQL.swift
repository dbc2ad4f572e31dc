import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore

/// ``WebhookRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLWebhookRepository: WebhookRepository {
    package let database: any Database
    /// Seals the endpoints' secrets (``ServerKeys/webhookKey``).
    package let key: SymmetricKey
    package let clock: WallClock
    package let random: RandomSource
    package var lease: Duration = .seconds(30)
    /// Each client's subscribers, kept for a moment (``WebhookSubscriberCache``); cleared by this repository's changes.
    package let subscriberCache: WebhookSubscriberCache
    /// The most deliveries to one endpoint in flight at once (across instances): a receiver that hangs holds at
    /// most these until its timeout, and the worker's other slots keep serving everyone else.
    package static let inFlightPerEndpoint = 4

    package init(
        database: any Database,
        key: SymmetricKey,
        clock: WallClock,
        random: RandomSource,
        lease: Duration = .seconds(30),
        subscriberCache: WebhookSubscriberCache = WebhookSubscriberCache()
    ) {
        self.subscriberCache = subscriberCache
        self.database = database
        self.key = key
        self.clock = clock
        self.random = random
        self.lease = lease
    }

    package var queue: LeasedQueue { LeasedQueue(database: database, table: "webhook_deliveries", clock: clock, lease: lease, maxAttempts: .max) }

    private static let endpointColumns =
        "id, client_id, url, event_types, enabled, failure_count, disabled_reason, previous_secret_expires_at, created_at"

    package func subscribers(clientId: String, in sql: any SQLDatabase) async throws -> [(endpointId: String, eventTypes: [String])] {
        try await subscriberCache.subscribers(clientId: clientId, now: clock.now()) {
            try await sql.raw(
                "SELECT id, event_types FROM webhook_endpoints WHERE client_id = \(bind: clientId) AND enabled = 1"
            ).all().map { (try $0.decode(column: "id", as: String.self), Self.types(try $0.decode(column: "event_types", as: String.self))) }
        }
    }

    package func enqueue(_ event: WebhookEvent, endpointId: String) async throws -> String {
        try await database.withSQL { sql in try await enqueue(event, endpointId: endpointId, in: sql) }
    }

    package func enqueue(_ event: WebhookEvent, endpointId: String, in sql: any SQLDatabase) async throws -> String {
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

    package func claimDue(limit: Int, claimant: String) async throws -> [WebhookDeliveryClaim] {
        try await queue.claimDue(
            limit: limit, claimant: claimant, returning: "id, event_id, endpoint_id, event_type, payload, attempts", as: WebhookDeliveryClaim.self,
            perGroup: (column: "endpoint_id", limit: Self.inFlightPerEndpoint)
        )
    }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await queue.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    package func target(endpointId: String) async throws -> WebhookTarget? {
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

    package func settle(ids: [String], status: WebhookSettlement) async throws {
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

    package func retry(id: String, endpointId: String, nextAttemptAt: Int64, status: Int?, error: String) async throws {
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

    package func giveUp(id: String, endpointId: String, status: Int?, error: String, in sql: any SQLDatabase) async throws -> Bool {
        let message = String(error.prefix(500))
        try await sql.raw(
            """
            UPDATE webhook_deliveries SET status = 'failed', locked_until = NULL, locked_by = NULL,
            last_status = \(bind: status), last_error = \(bind: message) WHERE id = \(bind: id)
            """
        ).run()
        // Cleared before and after: the caller's transaction commits later (an entry read before it ends, still
        // naming the endpoint, only queues deliveries the worker cancels).
        subscriberCache.clear()
        defer { subscriberCache.clear() }
        return try await sql.raw(
            """
            UPDATE webhook_endpoints SET enabled = 0, disabled_reason = 'retries-exhausted', failure_count = failure_count + 1,
            updated_at = \(bind: clock.now()) WHERE id = \(bind: endpointId) AND enabled = 1 RETURNING id
            """
        ).first() != nil
    }

    package func create(_ record: WebhookEndpointRecord, secret: String) async throws {
        let sealed = try seal(secret, endpointId: record.id)
        defer { subscriberCache.clear() }
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

    package func endpoint(id: String) async throws -> WebhookEndpointRecord? {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.endpointColumns) FROM webhook_endpoints WHERE id = \(bind: id)").first().map(Self.decode)
        }
    }

    package func endpoints(clientId: String) async throws -> [WebhookEndpointRecord] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT \(unsafeRaw: Self.endpointColumns) FROM webhook_endpoints WHERE client_id = \(bind: clientId) ORDER BY created_at, id"
            ).all().map(Self.decode)
        }
    }

    package func update(id: String, url: String?, eventTypes: [String]?, enabled: Bool?) async throws -> Bool {
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
        defer { subscriberCache.clear() }
        return try await database.withSQL { sql in try await sql.raw(final).first() != nil }
    }

    package func rotate(id: String, secret: String, previousUntil: Int64) async throws -> Bool {
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

    package func delete(id: String) async throws -> Bool {
        defer { subscriberCache.clear() }
        return try await database.transaction { sql in
            try await sql.raw("DELETE FROM webhook_deliveries WHERE endpoint_id = \(bind: id)").run()
            return try await sql.raw("DELETE FROM webhook_endpoints WHERE id = \(bind: id) RETURNING id").first() != nil
        }
    }

    private static let deliveryColumns =
        "id, event_id, event_type, status, attempts, last_status, last_error, next_attempt_at, created_at, delivered_at"

    package func deliveries(endpointId: String, limit: Int, before: (Int64, String)?) async throws -> [WebhookDeliveryView] {
        var statement: SQLQueryString = "SELECT \(unsafeRaw: Self.deliveryColumns) FROM webhook_deliveries WHERE endpoint_id = \(bind: endpointId)"
        if let before {
            statement = statement + " AND (created_at < \(bind: before.0) OR (created_at = \(bind: before.0) AND id < \(bind: before.1)))"
        }
        statement = statement + " ORDER BY created_at DESC, id DESC LIMIT \(bind: limit)"
        let final = statement
        return try await database.read { sql in try await sql.raw(final).all().map(Self.decodeDelivery) }
    }

    package func delivery(id: String) async throws -> WebhookDeliveryView? {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.deliveryColumns) FROM webhook_deliveries WHERE id = \(bind: id)").first().map(Self.decodeDelivery)
        }
    }

    package func redeliver(id: String, endpointId: String) async throws -> Bool? {
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

    package func purge(settledBefore cutoff: Int64) async throws {
        try await database.withSQL { sql in
            try await sql.raw("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < \(bind: cutoff)").run()
        }
    }

    // MARK: Encoding

    /// Event types as stored: space-separated.
    package static func text(_ types: [String]) -> String { types.joined(separator: " ") }
    package static func types(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

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
