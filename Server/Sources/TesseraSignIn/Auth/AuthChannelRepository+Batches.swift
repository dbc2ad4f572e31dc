import SQLKit
import TesseraCore

/// The statements of ``AuthChannelRepository`` that serve many concurrent requests at once (PostgreSQL, through a
/// ``StatementBatcher``): one statement for a batch instead of one per request, each request with the answer it would
/// have had alone.
extension AuthChannelRepository {
    /// Many channels in one statement (PostgreSQL). A channel's NULLs travel as empty texts (no ID, number or choice
    /// is ever empty).
    static func insert(_ channels: [AuthChannelRecord], in sql: any SQLDatabase) async throws {
        try await sql.statement(
            """
            INSERT INTO auth_channels (\(columns))
            SELECT r.id, r.client_id, r.user_id, NULLIF(r.device_id, ''), r.initiator, r.challenge, r.connect_ip, r.message, r.outcome,
                   r.step, NULL, '', NULL, r.created_at, NULL, NULL, NULL, r.expires_at, NULLIF(r.match_number, ''),
                   NULLIF(r.match_choices, ''), 0
            FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                        ?::bigint[], ?::bigint[], ?::text[], ?::text[])
                 AS r(id, client_id, user_id, device_id, initiator, challenge, connect_ip, message, outcome, step, created_at, expires_at,
                      match_number, match_choices)
            """,
            channels.map(\.id), channels.map(\.clientId), channels.map(\.userId), channels.map { $0.deviceId ?? "" },
            channels.map(\.initiator.rawValue), channels.map(\.challenge), channels.map(\.connectIp), channels.map(\.message),
            channels.map(\.outcome.rawValue), channels.map(\.state.rawValue), channels.map(\.createdAt), channels.map(\.expiresAt),
            channels.map { $0.numberMatch?.number ?? "" }, channels.map { $0.numberMatch?.choices.joined(separator: ",") ?? "" }
        ).run()
    }

    /// A move of one channel at `now` (the moment its expiry is judged against).
    struct TimedMove: Sendable {
        let channel: String
        let now: Int64
    }

    /// Channels by ID in one statement (PostgreSQL); unknown IDs are left out.
    static func find(_ ids: [String], in sql: any SQLDatabase) async throws -> [String: AuthChannelRecord] {
        let rows = try await sql.statement("SELECT \(columns) FROM auth_channels WHERE id = ANY(?)", Array(Set(ids))).all()
        var found: [String: AuthChannelRecord] = [:]
        for row in rows {
            let channel = try decode(row)
            found[channel.id] = channel
        }
        return found
    }

    /// `selected` → `verifying` for many channels (PostgreSQL), one answer each in their order, with the condition of
    /// ``move(_:from:to:now:setting:when:audited:details:)``. A channel twice in the batch goes in a later round (an
    /// UPDATE changes a row once, and could not tell which of the two moved it), as if each had run alone. The rows
    /// are locked in ID order first (the sorted, locking sub-select), as a batch of audited moves locks them
    /// (``run(_:in:)``): a batch of each kind sharing two channels cannot wait on each other.
    static func markRequestsSent(_ moves: [TimedMove], in sql: any SQLDatabase) async throws -> [Bool] {
        _ = try AuthChannelState.selected.transition(to: .verifying)
        var matched = [Bool](repeating: false, count: moves.count)
        for round in BatchRounds.split(moves.map(\.channel)) {
            let ids = round.map { moves[$0].channel }, nows = round.map { moves[$0].now }
            // One channel: its row is the only lock taken. More: locked in ID order first.
            let locking = ids.count > 1
            let lockedInOrder = locking ? ", (SELECT id FROM auth_channels WHERE id = ANY(?) ORDER BY id FOR UPDATE) AS l" : ""
            let statement = """
                UPDATE auth_channels AS a SET step = 'verifying', outcome = 'in_progress'
                FROM unnest(?::text[], ?::bigint[]) AS m(id, now)\(lockedInOrder)
                WHERE a.id = m.id\(locking ? " AND l.id = m.id" : "") AND a.step = 'selected' AND a.expires_at > m.now AND a.outcome = 'in_progress'
                RETURNING a.id
                """
            let rows = try await (locking ? sql.statement(statement, ids, nows, ids) : sql.statement(statement, ids, nows)).all()
            let moved = Set(try rows.map { try $0.decode(column: "id", as: String.self) })
            for index in round { matched[index] = moved.contains(moves[index].channel) }
        }
        return matched
    }

    /// A channel's audited move: its conditional UPDATE (run alone), what it sets (to run many of one kind as one
    /// statement), and the event of the row it returns.
    struct AuditedMove: Sendable {
        /// What an audited move sets, beside its step: each kind has one statement for many channels.
        enum Kind: Sendable {
            case selected(deviceId: String)
            case attested(nodes: String, appAttestNodes: Int)
            case completed(tokenSealed: String?)
            case finished(outcome: String, code: Int)

            /// The order in which a round runs its kinds.
            var rank: Int {
                switch self {
                case .selected: 0
                case .attested: 1
                case .completed: 2
                case .finished: 3
                }
            }
        }

        let channel: String
        let update: SQLQueryString
        /// The moment the channel's expiry is judged against.
        let now: Int64
        let kind: Kind
        let event: @Sendable (any SQLRow) throws -> AuditEvent
    }

    /// Runs a batch of audited moves in the caller's transaction; the index and returned row of each that matched, in
    /// the order they ran. One move runs its own UPDATE. More first lock their channels in ID order (two batches of two
    /// instances cannot wait on each other), then run in rounds of distinct channels (a channel's moves keep the batch's
    /// order, as if each ran alone), each round one `UPDATE … FROM unnest(…)` per kind.
    static func run(_ moves: [AuditedMove], in sql: any SQLDatabase) async throws -> [(index: Int, row: any SQLRow)] {
        if moves.count == 1 { return try await sql.raw(moves[0].update).first().map { [(0, $0)] } ?? [] }
        _ = try await sql.statement("SELECT id FROM auth_channels WHERE id = ANY(?) ORDER BY id FOR UPDATE", Array(Set(moves.map(\.channel))))
            .all()
        var matched: [(index: Int, row: any SQLRow)] = []
        for round in BatchRounds.split(moves.map(\.channel)) {
            for kind in Dictionary(grouping: round, by: { moves[$0].kind.rank }).sorted(by: { $0.key < $1.key }) {
                let indices = kind.value
                let rows = try await update(indices.map { moves[$0] }, in: sql)
                var byChannel: [String: any SQLRow] = [:]
                for row in rows { byChannel[try row.decode(column: "id", as: String.self)] = row }
                for index in indices { if let row = byChannel[moves[index].channel] { matched.append((index, row)) } }
            }
        }
        return matched
    }

    /// One statement for moves of one kind, of distinct channels, with the conditions of their single UPDATEs
    /// (``AuthChannelRepository/markSelected(_:deviceId:now:)`` and the others); the rows that moved.
    private static func update(_ moves: [AuditedMove], in sql: any SQLDatabase) async throws -> [any SQLRow] {
        let ids = moves.map(\.channel), nows = moves.map(\.now)
        let returning = " RETURNING a.id, a.client_id, a.user_id, a.device_id"
        switch moves[0].kind {
        case .selected:
            _ = try AuthChannelState.created.transition(to: .selected)
            let devices = moves.map { if case .selected(let device) = $0.kind { device } else { "" } }
            return try await sql.statement(
                """
                UPDATE auth_channels AS a SET step = 'selected', outcome = 'in_progress', device_id = m.device_id, verify_started_at = m.now
                FROM unnest(?::text[], ?::text[], ?::bigint[]) AS m(id, device_id, now)
                WHERE a.id = m.id AND a.step = 'created' AND a.expires_at > m.now AND a.outcome IN ('pending', 'in_progress')
                  AND (a.device_id IS NULL OR a.device_id = m.device_id)
                """ + returning,
                ids, devices, nows
            ).all()
        case .attested:
            _ = try AuthChannelState.verifying.transition(to: .attested)
            let nodes = moves.map { if case .attested(let nodes, _) = $0.kind { nodes } else { "" } }
            let appAttest = moves.map { if case .attested(_, let count) = $0.kind { count } else { 0 } }
            return try await sql.statement(
                """
                UPDATE auth_channels AS a SET step = 'attested', attested_at = m.now, nodes = m.nodes, app_attest_nodes = m.app_attest_nodes
                FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS m(id, nodes, app_attest_nodes, now)
                WHERE a.id = m.id AND a.step = 'verifying' AND a.expires_at > m.now AND a.outcome = 'in_progress'
                """ + returning,
                ids, nodes, appAttest, nows
            ).all()
        case .completed:
            _ = try AuthChannelState.attested.transition(to: .completed)
            // A token is never empty: an empty text is a channel without one (NULL).
            let tokens = moves.map { if case .completed(let token) = $0.kind { token ?? "" } else { "" } }
            return try await sql.statement(
                """
                UPDATE auth_channels AS a SET step = 'completed', outcome = 'completed', ended_at = m.now, token_sealed = NULLIF(m.token, '')
                FROM unnest(?::text[], ?::text[], ?::bigint[]) AS m(id, token, now)
                WHERE a.id = m.id AND a.step = 'attested' AND a.expires_at > m.now AND a.outcome = 'in_progress'
                """ + returning,
                ids, tokens, nows
            ).all()
        case .finished:
            let outcomes = moves.map { if case .finished(let outcome, _) = $0.kind { outcome } else { "" } }
            let codes = moves.map { if case .finished(_, let code) = $0.kind { code } else { 0 } }
            return try await sql.statement(
                """
                UPDATE auth_channels AS a SET outcome = m.outcome, code = m.code, ended_at = m.now
                FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS m(id, outcome, code, now)
                WHERE a.id = m.id AND a.outcome IN ('pending', 'in_progress')
                """ + returning,
                ids, outcomes, codes, nows
            ).all()
        }
    }
}
