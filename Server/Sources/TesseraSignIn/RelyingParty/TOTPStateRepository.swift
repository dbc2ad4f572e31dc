import SQLKit
import TesseraHTTPKit

/// The relying party's TOTP state, the one owner of `totp_state`: each user's last accepted step and
/// failure count. Every answer of ``TOTPVerifier`` comes from one conditional write here, so however
/// many guesses arrive at once, no more than the limit of wrong ones are counted before the lock.
/// Each method runs on the caller's handle (the verifier's job in the writer's batch, or its
/// transaction with the audit log).
package protocol TOTPStateRepository: Sendable {
    /// Accepts `step` for the user only while it is not locked (fewer than `maxFailures` failures)
    /// and the step is later than the last one used, resetting the failure count; false when refused.
    func accept(userId: String, step: Int64, now: Int64, maxFailures: Int, in sql: any SQLDatabase) async throws -> Bool
    /// ``accept(userId:step:now:maxFailures:in:)`` for each of many verifications (concurrent ones on PostgreSQL), in
    /// their order: a user's later one is decided after its earlier one, as if each ran alone; one answer each.
    func accept(_ acceptances: [TOTPAcceptance], maxFailures: Int, in sql: any SQLDatabase) async throws -> [Bool]
    /// The user's failure count; nil when the user never verified.
    func failures(userId: String, in sql: any SQLDatabase) async throws -> Int?
    /// Counts one failure while the count is under `maxFailures` and returns the new count; nil when the
    /// limit is reached already (nothing is counted).
    func recordFailure(userId: String, now: Int64, maxFailures: Int, in sql: any SQLDatabase) async throws -> Int?
    /// Clears the user's failure count (admin); false when the user has no state (it never failed).
    func resetFailures(userId: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool
}

/// A matched code to accept: its user, its step, and when.
package struct TOTPAcceptance: Sendable {
    package var userId: String
    package var step: Int64
    package var now: Int64

    package init(userId: String, step: Int64, now: Int64) {
        self.userId = userId
        self.step = step
        self.now = now
    }
}

/// ``TOTPStateRepository`` over SQLKit.
package struct SQLTOTPStateRepository: TOTPStateRepository {
    /// The repository.
    package init() {}

    package func accept(userId: String, step: Int64, now: Int64, maxFailures: Int, in sql: any SQLDatabase) async throws -> Bool {
        // The relying party's hot path: a statement with `?` placeholders, which SQLite runs as written.
        try await sql.statement(
            """
            INSERT INTO totp_state (user_id, last_step, failures, updated_at) VALUES (?, ?, 0, ?)
            ON CONFLICT (user_id) DO UPDATE SET last_step = ?, failures = 0, updated_at = ?
            WHERE totp_state.failures < ? AND totp_state.last_step < ?
            RETURNING user_id
            """,
            userId, step, now, step, now, maxFailures, step
        ).first() != nil
    }

    package func accept(_ acceptances: [TOTPAcceptance], maxFailures: Int, in sql: any SQLDatabase) async throws -> [Bool] {
        var accepted = [Bool](repeating: false, count: acceptances.count)
        guard sql.dialect.name == "postgresql" else {
            for (index, acceptance) in acceptances.enumerated() {
                accepted[index] = try await accept(userId: acceptance.userId, step: acceptance.step, now: acceptance.now, maxFailures: maxFailures, in: sql)
            }
            return accepted
        }
        // An upsert may change a row once per statement: a user's second verification of the batch goes in the next
        // round (in order, so it is decided after the first, as it would have been alone).
        for round in BatchRounds.split(acceptances.map(\.userId)) {
            let rows = try await sql.statement(
                """
                INSERT INTO totp_state (user_id, last_step, failures, updated_at)
                SELECT k.user_id, k.step, 0, k.now FROM unnest(?::text[], ?::bigint[], ?::bigint[]) AS k(user_id, step, now)
                ON CONFLICT (user_id) DO UPDATE SET last_step = excluded.last_step, failures = 0, updated_at = excluded.updated_at
                WHERE totp_state.failures < ? AND totp_state.last_step < excluded.last_step
                RETURNING user_id
                """,
                round.map { acceptances[$0].userId }, round.map { acceptances[$0].step }, round.map { acceptances[$0].now }, maxFailures
            ).all()
            let done = Set(try rows.map { try $0.decode(column: "user_id", as: String.self) })
            for index in round { accepted[index] = done.contains(acceptances[index].userId) }
        }
        return accepted
    }

    package func failures(userId: String, in sql: any SQLDatabase) async throws -> Int? {
        try await sql.raw("SELECT failures FROM totp_state WHERE user_id = \(bind: userId)").first()?.decode(column: "failures", as: Int.self)
    }

    package func recordFailure(userId: String, now: Int64, maxFailures: Int, in sql: any SQLDatabase) async throws -> Int? {
        try await sql.raw(
            """
            INSERT INTO totp_state (user_id, last_step, failures, updated_at) VALUES (\(bind: userId), -1, 1, \(bind: now))
            ON CONFLICT (user_id) DO UPDATE SET failures = totp_state.failures + 1, updated_at = \(bind: now)
            WHERE totp_state.failures < \(bind: maxFailures)
            RETURNING failures
            """
        ).first()?.decode(column: "failures", as: Int.self)
    }

    package func resetFailures(userId: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "UPDATE totp_state SET failures = 0, updated_at = \(bind: now) WHERE user_id = \(bind: userId) RETURNING user_id"
        ).first() != nil
    }
}
