import Foundation
import SQLKit
import TesseraCore

/// SQL for channels: the one place that reads or writes `auth_channels`. Every state change is one
/// conditional `UPDATE … RETURNING`, built from ``AuthChannelState``'s transitions, so two requests
/// racing on a channel cannot both move it.
package struct AuthChannelRepository: Sendable {
    package let database: any Database
    /// Where the login steps are recorded (`login.started`, `login.attested`, `login.completed`,
    /// `login.failed`), each in the transaction of its step; nil records nothing (the janitor's purge).
    package let audit: (any AuditLog)?
    /// On PostgreSQL, the audited moves of concurrent requests run in one transaction: each its own conditional
    /// UPDATE, their events in one append (one BEGIN, COMMIT and audit insert for many moves instead of each its own).
    private let auditedMoves: StatementBatcher<AuditedMove, Bool>?
    /// On PostgreSQL, concurrent reads of channels by ID run as one `SELECT … WHERE id = ANY(…)` (a login reads its
    /// channel twice: at `start` and at `complete`).
    private let finds: StatementBatcher<String, AuthChannelRecord?>?
    /// On PostgreSQL, concurrent `selected` → `verifying` moves (the one move that is not audited) run as one
    /// conditional `UPDATE … FROM unnest(…)`.
    private let requestsSent: StatementBatcher<TimedMove, Bool>?
    /// On PostgreSQL, concurrent inserts of channels opened on their own (a device's login) run as one
    /// `INSERT … SELECT … FROM unnest(…)`. A batch that fails (a user deleted meanwhile breaks its foreign key) runs
    /// again one channel at a time, so that an insert fails only for a reason of its own.
    private let inserts: StatementBatcher<AuthChannelRecord, Result<Void, any Error>>?

    package init(database: any Database, audit: (any AuditLog)? = nil) {
        self.database = database
        self.audit = audit
        guard database.kind == .postgres else {
            (auditedMoves, finds, requestsSent, inserts) = (nil, nil, nil, nil)
            return
        }
        inserts = StatementBatcher { channels in
            do {
                try await database.withSQL { sql in try await Self.insert(channels, in: sql) }
                return channels.map { _ in .success(()) }
            } catch where channels.count > 1 {
                var results: [Result<Void, any Error>] = []
                for channel in channels {
                    do {
                        try await database.withSQL { sql in try await Self.insert(channel, writing: true, in: sql) }
                        results.append(.success(()))
                    } catch {
                        results.append(.failure(error))
                    }
                }
                return results
            }
        }
        finds = StatementBatcher { ids in
            let found = try await database.read { sql in try await Self.find(ids, in: sql) }
            return ids.map { found[$0] }
        }
        requestsSent = StatementBatcher { moves in
            try await database.withSQL { sql in try await Self.markRequestsSent(moves, in: sql) }
        }
        guard let audit else {
            auditedMoves = nil
            return
        }
        auditedMoves = StatementBatcher { moves in
            try await database.transaction { sql in
                let matched = try await Self.run(moves, in: sql)
                let events = try matched.map { try moves[$0.index].event($0.row) }
                if !events.isEmpty { try await audit.append(events, in: sql) }
                var answers = [Bool](repeating: false, count: moves.count)
                for match in matched { answers[match.index] = true }
                return answers
            }
        }
    }

    package static let columns = """
        id, client_id, user_id, device_id, initiator, challenge, connect_ip, message, outcome, step, code, nodes, token_sealed, \
        created_at, verify_started_at, attested_at, ended_at, expires_at, match_number, match_choices, app_attest_nodes
        """

    package func insert(_ channel: AuthChannelRecord) async throws {
        if let inserts { return try await inserts.answer(channel).get() }
        try await database.withSQL { sql in try await insert(channel, in: sql) }
    }

    /// Inserts inside the caller's transaction (a relying-party request with its pushes). With
    /// `writing` false the same statement runs and inserts nothing: the work of an insert, for a
    /// caller that must not reveal by its timing that there was nothing to insert.
    package func insert(_ channel: AuthChannelRecord, writing: Bool = true, in sql: any SQLDatabase) async throws {
        try await Self.insert(channel, writing: writing, in: sql)
    }

    static func insert(_ channel: AuthChannelRecord, writing: Bool, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO auth_channels (\(unsafeRaw: Self.columns))
            SELECT \(bind: channel.id), \(bind: channel.clientId), \(bind: channel.userId), \(bind: channel.deviceId),
                   \(bind: channel.initiator.rawValue), \(bind: channel.challenge), \(bind: channel.connectIp), \(bind: channel.message),
                   \(bind: channel.outcome.rawValue), \(bind: channel.state.rawValue), NULL, '', NULL, \(bind: channel.createdAt), NULL, NULL,
                   NULL, \(bind: channel.expiresAt), \(bind: channel.numberMatch?.number),
                   \(bind: channel.numberMatch?.choices.joined(separator: ",")), 0
            WHERE \(bind: writing)
            """
        ).run()
    }

    package func find(_ id: String) async throws -> AuthChannelRecord? {
        guard id.count <= 100 else { return nil }
        if let finds { return try await finds.answer(id) }
        return try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM auth_channels WHERE id = \(bind: id)").first().map(Self.decode)
        }
    }

    /// Moves an open, unexpired channel from `source` to `target` (a move ``AuthChannelState`` allows),
    /// also setting `extra`; false if the channel was not at `source` any more.
    private func move(
        _ id: String, from source: AuthChannelState, to target: AuthChannelState, now: Int64, setting extra: SQLQueryString,
        when condition: SQLQueryString = "outcome = 'in_progress'", audited type: String? = nil, details: [String: String] = [:],
        as kind: AuditedMove.Kind? = nil
    ) async throws -> Bool {
        _ = try source.transition(to: target)
        let update: SQLQueryString = "UPDATE auth_channels SET step = \(bind: target.rawValue), " + extra
            + " WHERE id = \(bind: id) AND step = \(bind: source.rawValue) AND expires_at > \(bind: now) AND " + condition
            + " RETURNING id, client_id, user_id, device_id"
        let details = details.merging(["channel": id]) { $1 }
        guard let type, let kind else { return try await write(update, channel: id, audited: nil) }
        return try await write(update, channel: id, now: now, kind: kind) { try Self.event(type, row: $0, details: details) }
    }

    /// Runs a conditional `UPDATE … RETURNING`; true if it matched. With `event` (and an audit log),
    /// the matched row's audit event is appended in the same transaction.
    private func write(
        _ update: SQLQueryString, channel: String, now: Int64 = 0, kind: AuditedMove.Kind? = nil,
        audited event: (@Sendable (any SQLRow) throws -> AuditEvent)?
    ) async throws -> Bool {
        guard let audit, let event, let kind else { return try await database.withSQL { sql in try await sql.raw(update).first() != nil } }
        if let auditedMoves {
            return try await auditedMoves.answer(AuditedMove(channel: channel, update: update, now: now, kind: kind, event: event))
        }
        return try await database.transaction { sql in
            guard let row = try await sql.raw(update).first() else { return false }
            try await audit.append(try event(row), in: sql)
            return true
        }
    }

    /// The audit event of a channel's step, from the row its UPDATE returned; the channel's device acts.
    private static func event(_ type: String, row: any SQLRow, details: [String: String], actor: String? = nil) throws -> AuditEvent {
        let deviceId = try row.decode(column: "device_id", as: String?.self)
        return AuditEvent(
            type, actor: actor ?? deviceId.map(AuditEvent.device) ?? "system", clientId: try row.decode(column: "client_id", as: String.self),
            userId: try row.decode(column: "user_id", as: String.self), deviceId: deviceId, details: details
        )
    }

    /// `created` → `selected` for this device (an RP channel is bound to the device that picks it up).
    package func markSelected(_ id: String, deviceId: String, now: Int64) async throws -> Bool {
        try await move(
            id, from: .created, to: .selected, now: now,
            setting: "outcome = 'in_progress', device_id = \(bind: deviceId), verify_started_at = \(bind: now)",
            when: "outcome IN ('pending', 'in_progress') AND (device_id IS NULL OR device_id = \(bind: deviceId))",
            audited: "login.started", as: .selected(deviceId: deviceId)
        )
    }

    /// `selected` → `verifying`: the requests went out to the nodes.
    package func markRequestsSent(_ id: String, now: Int64) async throws -> Bool {
        if let requestsSent { return try await requestsSent.answer(TimedMove(channel: id, now: now)) }
        return try await move(id, from: .selected, to: .verifying, now: now, setting: "outcome = 'in_progress'")
    }

    /// `verifying` → `attested`, with the nodes whose attestations made the quorum and how many of them vouched for the
    /// device's App Attest attestation.
    package func markAttested(_ id: String, nodes: [String], appAttestNodes: Int = 0, now: Int64) async throws -> Bool {
        try await move(
            id, from: .verifying, to: .attested, now: now,
            setting: "attested_at = \(bind: now), nodes = \(bind: nodes.joined(separator: ",")), app_attest_nodes = \(bind: appAttestNodes)",
            audited: "login.attested", details: ["nodes": nodes.joined(separator: ",")],
            as: .attested(nodes: nodes.joined(separator: ","), appAttestNodes: appAttestNodes)
        )
    }

    /// `attested` → `completed`, keeping the sealed token for a relying party's long-poll.
    package func complete(_ id: String, tokenSealed: String?, now: Int64) async throws -> Bool {
        try await move(
            id, from: .attested, to: .completed, now: now,
            setting: "outcome = 'completed', ended_at = \(bind: now), token_sealed = \(bind: tokenSealed)",
            audited: "login.completed", as: .completed(tokenSealed: tokenSealed)
        )
    }

    /// Ends an open channel with `outcome`; false if it had already ended.
    package func finish(_ id: String, outcome: AuthOutcome, code: ErrorCode, now: Int64) async throws -> Bool {
        let update: SQLQueryString = """
            UPDATE auth_channels SET outcome = \(bind: outcome.rawValue), code = \(bind: code.rawValue), ended_at = \(bind: now)
            WHERE id = \(bind: id) AND outcome IN ('pending', 'in_progress')
            RETURNING id, client_id, user_id, device_id
            """
        let details = ["channel": id, "outcome": outcome.rawValue, "code": String(code.rawValue)]
        return try await write(update, channel: id, now: now, kind: .finished(outcome: outcome.rawValue, code: code.rawValue)) {
            try Self.event("login.failed", row: $0, details: details, actor: "system")
        }
    }

    /// Marks open channels past their expiry as expired; returns their IDs. On PostgreSQL the channels are locked in
    /// ID order first (a sorted, locking sub-select), as a batch of moves locks its channels (``run(_:in:)``): a batch
    /// failing two channels that expire meanwhile cannot wait on this statement while it waits on the batch.
    package func expireDue(now: Int64) async throws -> [String] {
        let expired = ErrorCode.authChannelExpired.rawValue
        let update: SQLQueryString = database.kind == .postgres
            ? """
                UPDATE auth_channels AS a SET outcome = 'expired', code = \(bind: expired), ended_at = a.expires_at
                FROM (SELECT id FROM auth_channels WHERE outcome IN ('pending', 'in_progress') AND expires_at <= \(bind: now)
                      ORDER BY id FOR UPDATE) AS l
                WHERE a.id = l.id AND a.outcome IN ('pending', 'in_progress') AND a.expires_at <= \(bind: now)
                RETURNING a.id
                """
            : """
                UPDATE auth_channels SET outcome = 'expired', code = \(bind: expired), ended_at = expires_at
                WHERE outcome IN ('pending', 'in_progress') AND expires_at <= \(bind: now)
                RETURNING id
                """
        return try await database.withSQL { sql in
            try await sql.raw(update).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// Relying-party requests waiting for a device of this user.
    package func pending(userId: String, now: Int64) async throws -> [AuthChannelRecord] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM auth_channels
                WHERE user_id = \(bind: userId) AND initiator = \(bind: AuthInitiator.relyingParty.rawValue) AND outcome = 'pending'
                  AND expires_at > \(bind: now)
                ORDER BY created_at LIMIT 20
                """
            ).all().map(Self.decode)
        }
    }

    /// A user's channels, newest first, before the cursor `(createdAt, id)`.
    package func history(userId: String, before: (Int64, String)?, limit: Int) async throws -> [AuthChannelRecord] {
        try await database.read { sql in
            if let (at, id) = before {
                return try await sql.raw(
                    """
                    SELECT \(unsafeRaw: Self.columns) FROM auth_channels
                    WHERE user_id = \(bind: userId) AND (created_at < \(bind: at) OR (created_at = \(bind: at) AND id < \(bind: id)))
                    ORDER BY created_at DESC, id DESC LIMIT \(bind: limit)
                    """
                ).all().map(Self.decode)
            }
            return try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM auth_channels WHERE user_id = \(bind: userId)
                ORDER BY created_at DESC, id DESC LIMIT \(bind: limit)
                """
            ).all().map(Self.decode)
        }
    }

    /// Drops ended channels older than `cutoff` (history retention).
    package func purge(endedBefore cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM auth_channels WHERE ended_at IS NOT NULL AND ended_at < \(bind: cutoff)").run()
    }

    package static func decode(_ row: any SQLRow) throws -> AuthChannelRecord {
        let nodes = try row.decode(column: "nodes", as: String.self)
        var numberMatch: NumberMatch?
        if let number = try row.decode(column: "match_number", as: String?.self), let choices = try row.decode(column: "match_choices", as: String?.self) {
            numberMatch = NumberMatch(number: number, choices: choices.split(separator: ",").map(String.init))
        }
        return AuthChannelRecord(
            id: try row.decode(column: "id", as: String.self), clientId: try row.decode(column: "client_id", as: String.self),
            userId: try row.decode(column: "user_id", as: String.self), deviceId: try row.decode(column: "device_id", as: String?.self),
            initiator: AuthInitiator(rawValue: try row.decode(column: "initiator", as: String.self)) ?? .device,
            challenge: try row.decode(column: "challenge", as: String.self),
            connectIp: try row.decode(column: "connect_ip", as: String.self), message: try row.decode(column: "message", as: String.self),
            outcome: AuthOutcome(rawValue: try row.decode(column: "outcome", as: String.self)) ?? .failed,
            state: AuthChannelState(stored: try row.decode(column: "step", as: String.self)), code: try row.decode(column: "code", as: Int?.self),
            nodes: nodes.isEmpty ? [] : nodes.split(separator: ",").map(String.init),
            appAttestNodes: try row.decode(column: "app_attest_nodes", as: Int?.self) ?? 0,
            tokenSealed: try row.decode(column: "token_sealed", as: String?.self), createdAt: try row.decode(column: "created_at", as: Int64.self),
            verifyStartedAt: try row.decode(column: "verify_started_at", as: Int64?.self),
            attestedAt: try row.decode(column: "attested_at", as: Int64?.self), endedAt: try row.decode(column: "ended_at", as: Int64?.self),
            expiresAt: try row.decode(column: "expires_at", as: Int64.self), numberMatch: numberMatch
        )
    }
}
