import Foundation
import Logging
import SQLKit

/// The lease and retry bookkeeping that every delivery queue shares (the courier's `outbox`, the
/// push outbox): due rows are claimed under a lease for one worker (`FOR UPDATE SKIP LOCKED` on
/// PostgreSQL, so two instances never claim the same row), the holder renews its leases while it is
/// still sending, and a failure is retried with exponential backoff (or after the peer's
/// `Retry-After`, when later) until it is given up. The table is the owner's: the owning domain
/// builds its queue with its own table name and columns.
///
/// The table needs `id`, `status` ('pending' while waiting), `attempts`, `next_attempt_at`,
/// `locked_until`, `locked_by` and `last_error` (and `sent_at` for ``settle(ids:status:)``).
package struct LeasedQueue: Sendable {
    package let database: any Database
    package let table: String
    package let clock: WallClock
    /// How long a claimed row is reserved for one worker.
    package var lease: Duration
    /// A row is given up after this many attempts.
    package var maxAttempts: Int
    /// Columns set to NULL when a row is given up (sealed payloads are not kept).
    package var clearedOnGiveUp: [String] = []

    /// The queue over `table` of `database`.
    package init(database: any Database, table: String, clock: WallClock, lease: Duration, maxAttempts: Int, clearedOnGiveUp: [String] = []) {
        self.database = database
        self.table = table
        self.clock = clock
        self.lease = lease
        self.maxAttempts = maxAttempts
        self.clearedOnGiveUp = clearedOnGiveUp
    }

    /// Reserves up to `limit` due rows for the worker `claimant` (counting the attempt) and returns
    /// `columns` of each, decoded as `Row`. With `perGroup`, rows sharing a value of its column (a webhook
    /// endpoint) are leased at most `perGroup.limit` at a time, counting those already leased (by any instance):
    /// a receiver that hangs holds that many deliveries, never the worker's every slot.
    package func claimDue<Row: Decodable & Sendable>(
        limit: Int, claimant: String, returning columns: String, as: Row.Type, perGroup: (column: String, limit: Int)? = nil
    ) async throws -> [Row] {
        let now = clock.now()
        let leaseEnd = now + lease.millis
        let skipLocked = database.kind == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        // With `perGroup`, only the due rows ranked within their group's free places are candidates.
        var inGroupLimit = SQLQueryString("")
        if let (group, perGroupLimit) = perGroup {
            inGroupLimit = """
                 AND id IN (
                    SELECT ranked.id FROM (
                        SELECT id, \(unsafeRaw: group) AS grp,
                               ROW_NUMBER() OVER (PARTITION BY \(unsafeRaw: group) ORDER BY next_attempt_at, id) AS position
                        FROM \(unsafeRaw: table)
                        WHERE status = 'pending' AND next_attempt_at <= \(bind: now) AND (locked_until IS NULL OR locked_until <= \(bind: now))
                    ) ranked
                    LEFT JOIN (
                        SELECT \(unsafeRaw: group) AS grp, COUNT(*) AS leased FROM \(unsafeRaw: table)
                        WHERE status = 'pending' AND locked_until > \(bind: now) GROUP BY \(unsafeRaw: group)
                    ) busy ON busy.grp = ranked.grp
                    WHERE ranked.position + COALESCE(busy.leased, 0) <= \(bind: perGroupLimit)
                )
                """
        }
        let candidates = inGroupLimit
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE \(unsafeRaw: table) SET locked_until = \(bind: leaseEnd), locked_by = \(bind: claimant), attempts = attempts + 1
                WHERE id IN (
                    SELECT id FROM \(unsafeRaw: table)
                    WHERE status = 'pending' AND next_attempt_at <= \(bind: now) AND (locked_until IS NULL OR locked_until <= \(bind: now))\(candidates)
                    ORDER BY next_attempt_at LIMIT \(bind: limit)\(unsafeRaw: skipLocked)
                )
                RETURNING \(unsafeRaw: columns)
                """
            ).all(decoding: Row.self)
        }
    }

    /// Extends the lease of the rows `claimant` still holds; returns the IDs it still holds.
    package func renew(ids: [String], claimant: String) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let now = clock.now()
        return try await database.withSQL { sql in
            try await sql.update(table).set("locked_until", to: now + lease.millis)
                .where("id", .in, ids).where("locked_by", .equal, claimant).where("status", .equal, "pending")
                .where("locked_until", .greaterThan, now)
                .returning("id").all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// Schedules another try after an exponential backoff (2 s, 4 s, 8 s … capped at 10 min), or
    /// `retryAfter` when that is later; gives the row up (status 'failed') after `maxAttempts`.
    package func markFailed(id: String, attempts: Int, error: String, retryAfter: Duration? = nil) async throws {
        let now = clock.now()
        let backoff = min(Int64(1000) << Int64(min(attempts, 20)), 600_000)
        let delay = max(backoff, min(retryAfter?.millis ?? 0, 3_600_000))
        let message = String(error.prefix(500))
        try await database.withSQL { sql in
            if attempts >= maxAttempts {
                let cleared = clearedOnGiveUp.map { "\($0) = NULL, " }.joined()
                try await sql.raw(
                    """
                    UPDATE \(unsafeRaw: table) SET status = 'failed', \(unsafeRaw: cleared)locked_until = NULL, locked_by = NULL,
                    last_error = \(bind: message) WHERE id = \(bind: id)
                    """
                ).run()
            } else {
                try await sql.raw(
                    """
                    UPDATE \(unsafeRaw: table) SET next_attempt_at = \(bind: now + delay), locked_until = NULL, locked_by = NULL,
                    last_error = \(bind: message) WHERE id = \(bind: id)
                    """
                ).run()
            }
        }
    }

    /// Records rows that need no more tries (`status`, e.g. 'sent' or 'dropped', and `sent_at`), releasing their leases.
    package func settle(ids: [String], status: String) async throws {
        guard !ids.isEmpty else { return }
        let now = clock.now()
        try await database.withSQL { sql in
            try await sql.update(table)
                .set("status", to: status).set("sent_at", to: now)
                .set(SQLColumn("locked_until"), to: SQLLiteral.null).set(SQLColumn("locked_by"), to: SQLLiteral.null)
                .where("id", .in, ids)
                .run()
        }
    }

    /// The rows by status.
    package func counts() async throws -> [String: Int] {
        try await database.withSQL { sql in
            var counts: [String: Int] = [:]
            for row in try await sql.raw("SELECT status, COUNT(*) AS n FROM \(unsafeRaw: table) GROUP BY status").all() {
                counts[try row.decode(column: "status", as: String.self)] = try row.decode(column: "n", as: Int.self)
            }
            return counts
        }
    }

    /// Runs `body` (the sending of a claimed batch) while renewing the batch's leases every third
    /// of the lease, so a slow peer does not let another instance send the same rows again.
    package func whileRenewingLeases<T: Sendable>(
        of ids: [String], claimant: String, logger: Logger, _ body: () async -> T
    ) async -> T {
        await withTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: lease / 3)
                    guard !Task.isCancelled else { return }
                    do { _ = try await renew(ids: ids, claimant: claimant) } catch {
                        logger.warning("renewing leases failed", metadata: ["table": .string(table), "error": .string(String(describing: error))])
                    }
                }
            }
            let value = await body()
            group.cancelAll()
            return value
        }
    }
}
