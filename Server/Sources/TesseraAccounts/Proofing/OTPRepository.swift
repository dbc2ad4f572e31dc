import SQLKit
import TesseraCore
import TesseraStorage

/// Where a code and its dispose token are bound: which app, channel, target and purpose.
package struct OTPBinding: Sendable, Equatable {
    package var clientId: String
    package var channel: OTPChannel
    package var target: String
    package var purpose: OTPPurpose

    package init(clientId: String, channel: OTPChannel, target: String, purpose: OTPPurpose) {
        self.clientId = clientId
        self.channel = channel
        self.target = target
        self.purpose = purpose
    }
}

/// The state of a challenge after a refused attempt, to tell the caller why.
package struct ChallengeState: Sendable, Decodable {
    package var attempts: Int
    package var expires_at: Int64
    package var consumed_at: Int64?
}

/// A dispose token as stored (the token itself only as a keyed hash).
package struct DisposeTokenRecord: Sendable, Decodable, Equatable {
    package var client_id: String
    package var channel: String
    package var target: String
    package var purpose: String
    package var expires_at: Int64
}

/// Storage of OTP challenges, send gates and dispose tokens, the one owner of `otp_challenges`,
/// `otp_send_gates` and `dispose_tokens`. Every single-use and limit rule is a conditional statement
/// (`UPDATE … WHERE … RETURNING`, upserts), never a read followed by a write. Methods take the
/// caller's transaction handle (sign-up consumes a dispose token in the transaction that creates the user).
package protocol OTPRepository: Sendable {
    /// Lets a send through if the target's cooldown has passed, and starts a new cooldown.
    /// Returns nil when let through, or the time when the next send is allowed.
    func passCooldownGate(_ key: String, now: Int64, cooldown: Duration, in sql: any SQLDatabase) async throws -> Int64?
    /// A send's three steps in one: passes the cooldown gate `gateKey`, ends the binding's live challenges and
    /// inserts the new one; when the gate refuses, nothing is changed and the time of the next allowed send is
    /// returned (nil: opened).
    func openChallenge(
        gateKey: String, cooldown: Duration, id: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64,
        in sql: any SQLDatabase
    ) async throws -> Int64?
    /// Whole sends (of distinct gate keys) in one statement, composed with the target's counts and the other owners'
    /// writes (``OTPComposedSend``); their outcomes in order, or nil where they cannot be (SQLite, whose writer runs
    /// the send's transaction as fast): the caller runs the transactions.
    func openChallenges(
        _ sends: [OTPComposedSend], cooldown: Duration, targetCounts: LimitedIncrement, targetKeys: [String], writes: [ComposedWrite],
        in sql: any SQLDatabase
    ) async throws -> [OTPComposedSend.Outcome]?
    /// Ends every live challenge for the binding, so only the newest code works.
    func supersede(_ binding: OTPBinding, now: Int64, in sql: any SQLDatabase) async throws
    func insertChallenge(id: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws
    /// The newest challenge for the binding that has not been used or superseded.
    func latestOpenChallenge(_ binding: OTPBinding, in sql: any SQLDatabase) async throws -> String?
    /// Counts one try against a live challenge, atomically; nil when the challenge is used up,
    /// expired or locked. Returns the stored hash and the tries counted so far (this one included).
    func claimAttempt(id: String, now: Int64, maxAttempts: Int, in sql: any SQLDatabase) async throws -> (codeHash: String, attempts: Int)?
    func state(id: String, in sql: any SQLDatabase) async throws -> ChallengeState?
    /// Marks the challenge used; false if another request used it first.
    func consume(id: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    func insertDisposeToken(hash: String, binding: OTPBinding, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws
    /// Uses a dispose token once: succeeds only if it exists, is unexpired, unused, and bound to this
    /// client and purpose. Returns what it was bound to.
    func consumeDisposeToken(hash: String, clientId: String, purpose: OTPPurpose, now: Int64, in sql: any SQLDatabase) async throws -> DisposeTokenRecord?
    /// Deletes challenges, gates and dispose tokens that ended before `cutoff`.
    func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws
}

extension OTPRepository {
    /// Not composed.
    package func openChallenges(
        _ sends: [OTPComposedSend], cooldown: Duration, targetCounts: LimitedIncrement, targetKeys: [String], writes: [ComposedWrite],
        in sql: any SQLDatabase
    ) async throws -> [OTPComposedSend.Outcome]? { nil }

    /// The gate, then the supersession, then the insertion, one statement each (``openChallengeStepwise``).
    package func openChallenge(
        gateKey: String, cooldown: Duration, id: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64,
        in sql: any SQLDatabase
    ) async throws -> Int64? {
        try await openChallengeStepwise(
            gateKey: gateKey, cooldown: cooldown, id: id, binding: binding, codeHash: codeHash, now: now, expiresAt: expiresAt, in: sql
        )
    }

    /// ``openChallenge(gateKey:cooldown:id:binding:codeHash:now:expiresAt:in:)`` as three statements: the gate, then
    /// the supersession, then the insertion.
    package func openChallengeStepwise(
        gateKey: String, cooldown: Duration, id: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64,
        in sql: any SQLDatabase
    ) async throws -> Int64? {
        if let next = try await passCooldownGate(gateKey, now: now, cooldown: cooldown, in: sql) { return next }
        try await supersede(binding, now: now, in: sql)
        try await insertChallenge(id: id, binding: binding, codeHash: codeHash, now: now, expiresAt: expiresAt, in: sql)
        return nil
    }
}

/// ``OTPRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLOTPRepository: OTPRepository {

    package init() {}

    /// On PostgreSQL one statement (data-modifying CTEs: the supersession and the insertion run only when the
    /// gate let the send through; the supersession sees the table before the insertion, so it never ends the new
    /// challenge): one round trip of a send's transaction instead of three. SQLite runs the three statements.
    package func openChallenge(
        gateKey: String, cooldown: Duration, id: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64,
        in sql: any SQLDatabase
    ) async throws -> Int64? {
        guard sql.dialect.name == "postgresql" else {
            return try await openChallengeStepwise(
                gateKey: gateKey, cooldown: cooldown, id: id, binding: binding, codeHash: codeHash, now: now, expiresAt: expiresAt, in: sql
            )
        }
        let next = now + cooldown.millis
        let row = try await sql.raw(
            """
            WITH gate AS (
              INSERT INTO otp_send_gates (gate_key, next_allowed_at) VALUES (\(bind: gateKey), \(bind: next))
              ON CONFLICT (gate_key) DO UPDATE SET next_allowed_at = excluded.next_allowed_at
              WHERE otp_send_gates.next_allowed_at <= \(bind: now)
              RETURNING gate_key
            ), superseded AS (
              UPDATE otp_challenges SET consumed_at = \(bind: now)
              WHERE client_id = \(bind: binding.clientId) AND channel = \(bind: binding.channel.rawValue)
                AND target = \(bind: binding.target) AND purpose = \(bind: binding.purpose.rawValue) AND consumed_at IS NULL
                AND EXISTS (SELECT 1 FROM gate)
            ), inserted AS (
              INSERT INTO otp_challenges (id, client_id, channel, target, purpose, code_hash, attempts, created_at, expires_at)
              SELECT \(bind: id), \(bind: binding.clientId), \(bind: binding.channel.rawValue), \(bind: binding.target),
                     \(bind: binding.purpose.rawValue), \(bind: codeHash), 0, \(bind: now), \(bind: expiresAt)
              WHERE EXISTS (SELECT 1 FROM gate)
              RETURNING id
            )
            SELECT (SELECT count(*) FROM inserted) AS opened,
                   (SELECT next_allowed_at FROM otp_send_gates WHERE gate_key = \(bind: gateKey)) AS next_allowed_at
            """
        ).first()
        guard let row, try row.decode(column: "opened", as: Int.self) == 0 else { return nil }
        return try row.decode(column: "next_allowed_at", as: Int64?.self) ?? next
    }

    /// Lets a send through if the target's cooldown has passed, and starts a new cooldown.
    /// Returns nil when let through, or the time when the next send is allowed.
    package func passCooldownGate(_ key: String, now: Int64, cooldown: Duration, in sql: any SQLDatabase) async throws -> Int64? {
        let next = now + cooldown.millis
        let passed = try await sql.raw(
            """
            INSERT INTO otp_send_gates (gate_key, next_allowed_at) VALUES (\(bind: key), \(bind: next))
            ON CONFLICT (gate_key) DO UPDATE SET next_allowed_at = excluded.next_allowed_at
            WHERE otp_send_gates.next_allowed_at <= \(bind: now)
            RETURNING gate_key
            """
        ).first()
        if passed != nil { return nil }
        let row = try await sql.raw("SELECT next_allowed_at FROM otp_send_gates WHERE gate_key = \(bind: key)").first()
        return try row?.decode(column: "next_allowed_at", as: Int64.self) ?? next
    }

    /// Ends every live challenge for the binding, so only the newest code works.
    package func supersede(_ binding: OTPBinding, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE otp_challenges SET consumed_at = \(bind: now)
            WHERE client_id = \(bind: binding.clientId) AND channel = \(bind: binding.channel.rawValue)
              AND target = \(bind: binding.target) AND purpose = \(bind: binding.purpose.rawValue) AND consumed_at IS NULL
            """
        ).run()
    }

    package func insertChallenge(
        id: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64, in sql: any SQLDatabase
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO otp_challenges (id, client_id, channel, target, purpose, code_hash, attempts, created_at, expires_at)
            VALUES (\(bind: id), \(bind: binding.clientId), \(bind: binding.channel.rawValue), \(bind: binding.target),
                    \(bind: binding.purpose.rawValue), \(bind: codeHash), 0, \(bind: now), \(bind: expiresAt))
            """
        ).run()
    }

    /// The newest challenge for the binding that has not been used or superseded.
    package func latestOpenChallenge(_ binding: OTPBinding, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw(
            """
            SELECT id FROM otp_challenges
            WHERE client_id = \(bind: binding.clientId) AND channel = \(bind: binding.channel.rawValue)
              AND target = \(bind: binding.target) AND purpose = \(bind: binding.purpose.rawValue) AND consumed_at IS NULL
            ORDER BY created_at DESC LIMIT 1
            """
        ).first()?.decode(column: "id", as: String.self)
    }

    /// Counts one try against a live challenge, atomically; nil when the challenge is used up,
    /// expired or locked. Returns the stored hash and the tries counted so far (this one included).
    package func claimAttempt(id: String, now: Int64, maxAttempts: Int, in sql: any SQLDatabase) async throws -> (codeHash: String, attempts: Int)? {
        guard let row = try await sql.raw(
            """
            UPDATE otp_challenges SET attempts = attempts + 1
            WHERE id = \(bind: id) AND consumed_at IS NULL AND attempts < \(bind: maxAttempts) AND expires_at > \(bind: now)
            RETURNING code_hash, attempts
            """
        ).first() else { return nil }
        return (try row.decode(column: "code_hash", as: String.self), try row.decode(column: "attempts", as: Int.self))
    }

    package func state(id: String, in sql: any SQLDatabase) async throws -> ChallengeState? {
        try await sql.raw("SELECT attempts, expires_at, consumed_at FROM otp_challenges WHERE id = \(bind: id)")
            .first(decoding: ChallengeState.self)
    }

    /// Marks the challenge used; false if another request used it first.
    package func consume(id: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "UPDATE otp_challenges SET consumed_at = \(bind: now) WHERE id = \(bind: id) AND consumed_at IS NULL RETURNING id"
        ).first() != nil
    }

    package func insertDisposeToken(hash: String, binding: OTPBinding, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO dispose_tokens (token_hash, client_id, channel, target, purpose, created_at, expires_at)
            VALUES (\(bind: hash), \(bind: binding.clientId), \(bind: binding.channel.rawValue), \(bind: binding.target),
                    \(bind: binding.purpose.rawValue), \(bind: now), \(bind: expiresAt))
            """
        ).run()
    }

    /// Uses a dispose token once: succeeds only if it exists, is unexpired, unused, and bound to this
    /// client and purpose. Returns what it was bound to.
    package func consumeDisposeToken(
        hash: String, clientId: String, purpose: OTPPurpose, now: Int64, in sql: any SQLDatabase
    ) async throws -> DisposeTokenRecord? {
        try await sql.raw(
            """
            UPDATE dispose_tokens SET consumed_at = \(bind: now)
            WHERE token_hash = \(bind: hash) AND client_id = \(bind: clientId) AND purpose = \(bind: purpose.rawValue)
              AND consumed_at IS NULL AND expires_at > \(bind: now)
            RETURNING client_id, channel, target, purpose, expires_at
            """
        ).first(decoding: DisposeTokenRecord.self)
    }

    /// Deletes challenges, gates and dispose tokens that ended before `cutoff`.
    package func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM otp_challenges WHERE expires_at < \(bind: cutoff)").run()
        try await sql.raw("DELETE FROM otp_send_gates WHERE next_allowed_at < \(bind: cutoff)").run()
        try await sql.raw("DELETE FROM dispose_tokens WHERE expires_at < \(bind: cutoff)").run()
    }
}
