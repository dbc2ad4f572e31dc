import Logging
import SQLKit
import TesseraCore

/// A ping as the worker claims it.
package struct CIBAPingDelivery: Decodable, Sendable {
    package var id: String
    package var client_id: String
    package var sealed: String?
    package var attempts: Int
    /// `ping` (CIBA §10.2) or `channel` (an authentication channel's result, called back).
    package var kind: String
    package var channel_id: String?
}

/// The ping outbox (CIBA §10.2; also the callbacks of the authentication channel), the one owner of `ciba_ping_outbox`; it reads `auth_channels` (a named join) to find
/// the pings whose relying-party request ended.
package protocol CIBAPingRepository: Sendable {
    /// Queues the ping (or, with `kind` `channel`, the callback) of a new request, due at `dueAt` (its expiry)
    /// unless its relying-party request ends first. False when a row with this ID exists already.
    @discardableResult
    func enqueue(
        id: String, kind: String, clientId: String, channelId: String?, sealed: String, now: Int64, dueAt: Int64, in sql: any SQLDatabase
    ) async throws -> Bool
    /// Makes due now the waiting pings whose relying-party request ended; then claims due pings under a lease.
    func claimDue(limit: Int, claimant: String) async throws -> [CIBAPingDelivery]
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T
    /// Replaces what a row carries, sealed (push mode: the minted tokens, kept for the retries).
    func updateSealed(id: String, sealed: String) async throws
    /// Records pings that need no more tries: `sent` or `dropped`.
    func settle(ids: [String], status: String) async throws
    func markFailed(id: String, attempts: Int, error: String, retryAfter: Duration?) async throws
    /// Pings by status ('pending', 'sent', 'dropped', 'failed').
    func counts() async throws -> [String: Int]
    /// Removes settled pings created before `cutoff`.
    func purge(before cutoff: Int64) async throws
}

/// ``CIBAPingRepository`` over SQLite or PostgreSQL, with the shared lease and retry bookkeeping.
package struct SQLCIBAPingRepository: CIBAPingRepository {
    package let database: any Database
    package let clock: WallClock
    package var lease: Duration = .seconds(30)
    package var maxAttempts = 8

    package init(database: any Database, clock: WallClock) {
        self.database = database
        self.clock = clock
    }

    private var queue: LeasedQueue {
        LeasedQueue(database: database, table: "ciba_ping_outbox", clock: clock, lease: lease, maxAttempts: maxAttempts, clearedOnGiveUp: ["sealed"])
    }

    @discardableResult
    package func enqueue(
        id: String, kind: String, clientId: String, channelId: String?, sealed: String, now: Int64, dueAt: Int64, in sql: any SQLDatabase
    ) async throws -> Bool {
        struct Inserted: Decodable { var id: String }
        return try await sql.raw(
            """
            INSERT INTO ciba_ping_outbox (id, kind, client_id, channel_id, sealed, status, attempts, next_attempt_at, created_at)
            VALUES (\(bind: id), \(bind: kind), \(bind: clientId), \(bind: channelId), \(bind: sealed), 'pending', 0, \(bind: dueAt), \(bind: now))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """
        ).first(decoding: Inserted.self) != nil
    }

    package func claimDue(limit: Int, claimant: String) async throws -> [CIBAPingDelivery] {
        let now = clock.now()
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE ciba_ping_outbox SET next_attempt_at = \(bind: now)
                WHERE status = 'pending' AND attempts = 0 AND next_attempt_at > \(bind: now) AND channel_id IN (
                    SELECT id FROM auth_channels WHERE ended_at IS NOT NULL OR expires_at <= \(bind: now)
                )
                """
            ).run()
        }
        return try await queue.claimDue(limit: limit, claimant: claimant, returning: "id, client_id, sealed, attempts, kind, channel_id", as: CIBAPingDelivery.self)
    }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await queue.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    package func updateSealed(id: String, sealed: String) async throws {
        try await database.withSQL { sql in
            try await sql.raw("UPDATE ciba_ping_outbox SET sealed = \(bind: sealed) WHERE id = \(bind: id)").run()
        }
    }

    package func settle(ids: [String], status: String) async throws { try await queue.settle(ids: ids, status: status) }

    package func markFailed(id: String, attempts: Int, error: String, retryAfter: Duration?) async throws {
        try await queue.markFailed(id: id, attempts: attempts, error: error, retryAfter: retryAfter)
    }

    package func counts() async throws -> [String: Int] { try await queue.counts() }

    package func purge(before cutoff: Int64) async throws {
        try await database.withSQL { sql in
            try await sql.raw("DELETE FROM ciba_ping_outbox WHERE status <> 'pending' AND created_at < \(bind: cutoff)").run()
        }
    }
}
