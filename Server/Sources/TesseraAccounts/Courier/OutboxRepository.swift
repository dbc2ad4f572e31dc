import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore
import TesseraHTTPKit

/// The courier's storage, the one owner of the `outbox` table: messages accepted for delivery,
/// claimed by workers under a lease, settled once sent or given up. Another domain only enqueues,
/// inside its own transaction (``enqueue(_:in:)``), so a message exists exactly when its cause does.
package protocol OutboxRepository: Sendable {
    /// How long a claimed message is reserved for one worker (renewed every third of it while sending).
    var lease: Duration { get }
    /// Adds a message inside the caller's transaction.
    func enqueue(_ message: OutboundMessage, in sql: any SQLDatabase) async throws
    /// The addition of a batch's messages (one per request, in the batch's order) as a write of a statement that
    /// another owner composes (``ComposedWrite``: a message exists exactly when its request was selected); nil where
    /// it cannot be composed.
    func composedEnqueue(_ messages: [OutboundMessage]) throws -> ComposedWrite?
    /// Reserves up to `limit` due messages for the worker `claimant`.
    func claimDue(limit: Int, claimant: String) async throws -> [(message: OutboundMessage, attempts: Int)]
    /// Extends the lease of the messages `claimant` still holds; returns those it still holds.
    @discardableResult
    func renew(ids: [String], claimant: String) async throws -> [String]
    func markSent(ids: [String]) async throws
    /// Schedules another try after a backoff, or gives the message up after its last attempt.
    func markFailed(id: String, attempts: Int, error: String) async throws
    func counts() async throws -> OutboxCounts
    /// The messages waiting for delivery and when the oldest was queued (milliseconds; nil when none wait).
    func pending() async throws -> (count: Int, oldestCreatedAt: Int64?)
    /// Deletes settled messages created before `cutoff`.
    func purge(sentBefore cutoff: Int64) async throws
    /// Runs `body` (the sending of a claimed batch) while renewing the batch's leases for `claimant`.
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T
}

extension OutboxRepository {
    /// Not composed: the caller enqueues in a transaction.
    package func composedEnqueue(_ messages: [OutboundMessage]) throws -> ComposedWrite? { nil }
}

/// How many messages of the outbox are pending, sent and failed (the tests and `/metrics` read them).
package struct OutboxCounts: Sendable, Equatable {
    package var pending: Int
    package var sent: Int
    package var failed: Int

    package init(pending: Int, sent: Int, failed: Int) {
        self.pending = pending
        self.sent = sent
        self.failed = failed
    }
}

/// ``OutboxRepository`` over SQLKit, the durable outbox: a message accepted for delivery is a row
/// here, written in the same transaction as whatever caused it. Payloads (which contain codes) are
/// sealed with the outbox key and erased once delivered.
package struct SQLOutboxRepository: OutboxRepository {
    package let database: any Database
    package let key: SymmetricKey
    package let clock: WallClock

    /// Retry schedule: 2 s, 4 s, 8 s … capped at 10 min; a message is given up after `maxAttempts`.
    package var maxAttempts = 12
    /// How long a claimed message is reserved for one worker. The worker renews it every third of
    /// this while it is still sending, so a message whose worker died is taken up again after at
    /// most this long, and a slow delivery is not.
    package var lease: Duration = .seconds(30)


    /// On PostgreSQL, the settling of concurrent deliveries (the worker records each the moment its attempt ended):
    /// one statement for the deliveries that end together instead of one each (nil on SQLite).
    private let settles: StatementBatcher<String, Void>?

    package init(database: any Database, key: SymmetricKey, clock: WallClock, maxAttempts: Int = 12, lease: Duration = .seconds(30)) {
        self.database = database
        self.key = key
        self.clock = clock
        self.maxAttempts = maxAttempts
        self.lease = lease
        settles = database.kind == .postgres ? StatementBatcher { ids in
            try await Self.settle(ids, now: clock.now(), in: database)
            return ids.map { _ in () }
        } : nil
    }

    /// A message's subject and body, as sealed in the outbox.
    package struct Payload: Codable, Equatable, Sendable {
        package var subject: String
        package var body: String

        package init(subject: String, body: String) {
            self.subject = subject
            self.body = body
        }
    }

    /// Adds a message inside the caller's transaction.
    package func enqueue(_ message: OutboundMessage, in sql: any SQLDatabase) async throws {
        let sealed = try seal(message), now = clock.now()
        try await sql.raw(
            """
            INSERT INTO outbox (id, channel, recipient, sealed_payload, status, attempts, next_attempt_at, created_at)
            VALUES (\(bind: message.id), \(bind: message.channel.rawValue), \(bind: message.recipient), \(bind: sealed),
                    'pending', 0, \(bind: now), \(bind: now))
            """
        ).run()
    }

    /// The same addition for a batch: the messages of the selected positions (their arrays bound whole).
    package func composedEnqueue(_ messages: [OutboundMessage]) throws -> ComposedWrite? {
        let sealed = try messages.map(seal), now = clock.now()
        let ids = messages.map(\.id), channels = messages.map(\.channel.rawValue), recipients = messages.map(\.recipient)
        return ComposedWrite { selected in
            """
            INSERT INTO outbox (id, channel, recipient, sealed_payload, status, attempts, next_attempt_at, created_at)
            SELECT m.id, m.channel, m.recipient, m.sealed, 'pending', 0, \(bind: now), \(bind: now)
            FROM unnest(\(bind: ids)::text[], \(bind: channels)::text[], \(bind: recipients)::text[], \(bind: sealed)::text[])
              WITH ORDINALITY AS m(id, channel, recipient, sealed, ord)
            WHERE m.ord IN \(selected)
            """
        }
    }

    /// The message's subject and body sealed with the outbox key (bound to its ID), base64. The JSON is what
    /// ``SharedJSON/encoder`` writes for ``Payload`` (``JSONObjectWriter``: the encoder took 4 % of an OTP send's server CPU
    /// on PostgreSQL), read back by ``claimDue(limit:claimant:)``'s decoder.
    private func seal(_ message: OutboundMessage) throws -> String {
        try Sealing.seal(Self.payloadJSON(message), using: key, authenticating: Data(message.id.utf8)).base64EncodedString()
    }

    /// The sealed payload's JSON: `{"body":…,"subject":…}`.
    package static func payloadJSON(_ message: OutboundMessage) -> Data {
        var writer = JSONObjectWriter(capacity: message.subject.utf8.count + message.body.utf8.count + 32)
        writer.add("body", message.body)
        writer.add("subject", message.subject)
        return Data(writer.finish())
    }

    private struct ClaimedRow: Decodable, Sendable {
        var id: String
        var channel: String
        var recipient: String
        var sealed_payload: String?
        var attempts: Int
    }

    /// The lease and retry bookkeeping of the `outbox` table (shared with the push outbox).
    package var queue: LeasedQueue {
        LeasedQueue(database: database, table: "outbox", clock: clock, lease: lease, maxAttempts: maxAttempts, clearedOnGiveUp: ["sealed_payload"])
    }

    /// Reserves up to `limit` due messages for the worker `claimant`. A reservation that is not
    /// settled or renewed (the process died) runs out after the lease, and the message is tried again.
    package func claimDue(limit: Int, claimant: String) async throws -> [(message: OutboundMessage, attempts: Int)] {
        let rows = try await queue.claimDue(
            limit: limit, claimant: claimant, returning: "id, channel, recipient, sealed_payload, attempts", as: ClaimedRow.self
        )
        return rows.compactMap { row in
            guard let channel = OTPChannel(rawValue: row.channel),
                  let sealed = row.sealed_payload.flatMap({ Data(base64Encoded: $0) }),
                  let box = try? AES.GCM.SealedBox(combined: sealed),
                  let opened = try? AES.GCM.open(box, using: key, authenticating: Data(row.id.utf8)),
                  let payload = try? SharedJSON.decoder.decode(Payload.self, from: opened)
            else { return nil }
            return (
                OutboundMessage(id: row.id, channel: channel, recipient: row.recipient, subject: payload.subject, body: payload.body),
                row.attempts
            )
        }
    }

    /// Extends the lease of the messages `claimant` still holds; returns the IDs it still holds.
    @discardableResult
    package func renew(ids: [String], claimant: String) async throws -> [String] {
        try await queue.renew(ids: ids, claimant: claimant)
    }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await queue.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    /// Records deliveries, in one statement for the whole batch. On PostgreSQL a single delivery's record waits for
    /// the statement of the deliveries recorded at the same time (``StatementBatcher``): it is committed when this
    /// returns, as with a statement of its own.
    package func markSent(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        if let settles, ids.count == 1 { return try await settles.answer(ids[0]) }
        try await Self.settle(ids, now: clock.now(), in: database)
    }

    /// Marks `ids` sent at `now`, their payloads erased and their leases ended (on PostgreSQL one text whatever the
    /// number of IDs: an array bind).
    private static func settle(_ ids: [String], now: Int64, in database: any Database) async throws {
        try await database.withSQL { sql in
            let matching: SQLQueryString = sql.dialect.name == "postgresql" ? "id = ANY(\(bind: ids))" : "id IN (\(binds: ids))"
            try await sql.raw(
                """
                UPDATE outbox SET status = 'sent', sent_at = \(bind: now), sealed_payload = NULL, locked_until = NULL, locked_by = NULL,
                  last_error = NULL
                WHERE \(matching)
                """
            ).run()
        }
    }

    /// Schedules another try with exponential backoff, or gives up after `maxAttempts`.
    package func markFailed(id: String, attempts: Int, error: String) async throws {
        try await queue.markFailed(id: id, attempts: attempts, error: error)
    }

    package func counts() async throws -> OutboxCounts {
        try await database.withSQL { sql in
            let rows = try await sql.raw("SELECT status, COUNT(*) AS n FROM outbox GROUP BY status").all()
            var counts = OutboxCounts(pending: 0, sent: 0, failed: 0)
            for row in rows {
                let n = try row.decode(column: "n", as: Int.self)
                switch try row.decode(column: "status", as: String.self) {
                case "pending": counts.pending = n
                case "sent": counts.sent = n
                default: counts.failed = n
                }
            }
            return counts
        }
    }

    package func pending() async throws -> (count: Int, oldestCreatedAt: Int64?) {
        try await database.withSQL { sql in
            let row = try await sql.raw("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox WHERE status = 'pending'").first()
            return (try row?.decode(column: "n", as: Int.self) ?? 0, try row?.decode(column: "oldest", as: Int64?.self))
        }
    }

    package func purge(sentBefore cutoff: Int64) async throws {
        try await database.withSQL { sql in
            try await sql.raw("DELETE FROM outbox WHERE status <> 'pending' AND created_at < \(bind: cutoff)").run()
        }
    }
}
