import SQLKit
import TesseraCore
import TesseraStorage

extension SQLOTPRepository {
    /// On PostgreSQL, the sends as one statement of data-modifying CTEs over the batch's rows (`input`, arrays bound
    /// whole: one text whatever the batch's size), in the order of a send's transaction: each target's count is read
    /// (`target`); below its limit, the gate lets the send through or not (`gate`); through, the target is counted
    /// while still below its limit (`counted`, `opened`); counted, the binding's live challenges end, the new one is
    /// inserted and the other owners write (the outbox, the audit log). So nothing of a send is written when its gate
    /// refuses or its limit is reached, as when its transaction rolled back; the one difference is that a concurrent
    /// send of the same target may take the target's last count between the read and the count, and then this send,
    /// refused, has started the target's cooldown. The supersession sees the table before the insertion, so it never
    /// ends a new challenge. The gate keys must be distinct (an upsert touches a row once). PostgreSQL plans the statement at
    /// each call (``PostgresPlanning/perCall``). Nil on SQLite.
    package func openChallenges(
        _ sends: [OTPComposedSend], cooldown: Duration, targetCounts: LimitedIncrement, targetKeys: [String], writes: [ComposedWrite],
        in sql: any SQLDatabase
    ) async throws -> [OTPComposedSend.Outcome]? {
        guard sql.dialect.name == "postgresql" else { return nil }
        guard !sends.isEmpty else { return [] }
        let wait = cooldown.millis
        let opened: SQLQueryString = "(SELECT ord FROM opened)"
        // Planned at each call: a generic plan made while the tables were small would scan them whole once they are not.
        var query: SQLQueryString = """
            \(unsafeRaw: PostgresPlanning.perCall)WITH input AS (
              SELECT * FROM unnest(
                \(bind: sends.map(\.gateKey))::text[], \(bind: targetKeys)::text[], \(bind: sends.map(\.now))::int8[],
                \(bind: sends.map(\.binding.clientId))::text[], \(bind: sends.map(\.binding.channel.rawValue))::text[],
                \(bind: sends.map(\.binding.target))::text[], \(bind: sends.map(\.binding.purpose.rawValue))::text[],
                \(bind: sends.map(\.challengeId))::text[], \(bind: sends.map(\.codeHash))::text[], \(bind: sends.map(\.expiresAt))::int8[]
              ) WITH ORDINALITY AS i(gate_key, target_key, now, client_id, channel, target, purpose, id, code_hash, expires_at, ord)
            ), target AS (\(targetCounts.isBelow)), gate AS (
              INSERT INTO otp_send_gates (gate_key, next_allowed_at)
              SELECT i.gate_key, i.now + \(bind: wait) FROM input i JOIN target t ON t.ord = i.ord WHERE t.ok
              ON CONFLICT (gate_key) DO UPDATE SET next_allowed_at = excluded.next_allowed_at
              WHERE otp_send_gates.next_allowed_at <= excluded.next_allowed_at - \(bind: wait)
              RETURNING gate_key
            ), counted AS (\(targetCounts.increment("(SELECT i.ord FROM input i JOIN gate g ON g.gate_key = i.gate_key)"))),
            opened AS (SELECT i.ord FROM input i JOIN counted c ON c.counter_key = i.target_key), superseded AS (
              UPDATE otp_challenges c SET consumed_at = i.now FROM input i
              WHERE i.ord IN \(opened) AND c.client_id = i.client_id AND c.channel = i.channel AND c.target = i.target
                AND c.purpose = i.purpose AND c.consumed_at IS NULL
            ), inserted AS (
              INSERT INTO otp_challenges (id, client_id, channel, target, purpose, code_hash, attempts, created_at, expires_at)
              SELECT i.id, i.client_id, i.channel, i.target, i.purpose, i.code_hash, 0, i.now, i.expires_at
              FROM input i WHERE i.ord IN \(opened)
            )
            """
        for (index, write) in writes.enumerated() {
            query = query + ", \(unsafeRaw: "w\(index)") AS (" + write.statement(opened) + ")"
        }
        query = query + """
             SELECT i.ord, t.ok AS below, EXISTS (SELECT 1 FROM gate g WHERE g.gate_key = i.gate_key) AS passed,
                    EXISTS (SELECT 1 FROM opened o WHERE o.ord = i.ord) AS opened, s.next_allowed_at
             FROM input i JOIN target t ON t.ord = i.ord LEFT JOIN otp_send_gates s ON s.gate_key = i.gate_key
             ORDER BY i.ord
            """
        let rows = try await sql.raw(query).all()
        guard rows.count == sends.count else {
            throw AppError.internalError(detail: "The OTP sends' statement answered \(rows.count) rows for \(sends.count) sends")
        }
        return try zip(sends, rows).map { send, row in
            if try row.decode(column: "opened", as: Bool.self) { return .opened }
            if try row.decode(column: "passed", as: Bool.self) { return .targetLimited }
            // The final SELECT reads the gate as it was before the statement. The gate refuses first, as in the transaction.
            let before = try row.decode(column: "next_allowed_at", as: Int64?.self)
            guard try row.decode(column: "below", as: Bool.self) else {
                if let before, before > send.now { return .cooldown(nextAllowedAt: before) }
                return .targetLimited
            }
            return .cooldown(nextAllowedAt: before ?? send.now + wait)
        }
    }
}
