import SQLKit
import TesseraCore
import TesseraStorage

extension SQLOTPRepository {
    /// On PostgreSQL, the send as one statement of data-modifying CTEs, in the order of the send's transaction: the
    /// target's count is read (`target`); below its limit, the gate lets the send through or not (`gate`); through,
    /// the target is counted while still below its limit (`counted`); counted, the binding's live challenges end,
    /// the new one is inserted and the other owners write (the outbox, the audit log). So nothing is written when
    /// the gate refuses or the limit is reached, as when the transaction rolled back; the one difference is that a
    /// concurrent send of the same target may take the target's last count between the read and the count, and
    /// then this send, refused, has started the target's cooldown. The supersession sees the table before the
    /// insertion, so it never ends the new challenge. Nil on SQLite.
    package func openChallenge(_ send: OTPComposedSend, in sql: any SQLDatabase) async throws -> OTPComposedSend.Outcome? {
        guard sql.dialect.name == "postgresql" else { return nil }
        let binding = send.binding, next = send.now + send.cooldown.millis
        let counted: SQLQueryString = "EXISTS (SELECT 1 FROM counted)"
        var query: SQLQueryString = """
            WITH target AS (\(send.targetCount.isBelow)), gate AS (
              INSERT INTO otp_send_gates (gate_key, next_allowed_at) SELECT \(bind: send.gateKey), \(bind: next)
              WHERE (SELECT ok FROM target)
              ON CONFLICT (gate_key) DO UPDATE SET next_allowed_at = excluded.next_allowed_at
              WHERE otp_send_gates.next_allowed_at <= \(bind: send.now)
              RETURNING gate_key
            ), counted AS (\(send.targetCount.increment("EXISTS (SELECT 1 FROM gate)"))), superseded AS (
              UPDATE otp_challenges SET consumed_at = \(bind: send.now)
              WHERE client_id = \(bind: binding.clientId) AND channel = \(bind: binding.channel.rawValue)
                AND target = \(bind: binding.target) AND purpose = \(bind: binding.purpose.rawValue) AND consumed_at IS NULL
                AND \(counted)
            ), inserted AS (
              INSERT INTO otp_challenges (id, client_id, channel, target, purpose, code_hash, attempts, created_at, expires_at)
              SELECT \(bind: send.challengeId), \(bind: binding.clientId), \(bind: binding.channel.rawValue), \(bind: binding.target),
                     \(bind: binding.purpose.rawValue), \(bind: send.codeHash), 0, \(bind: send.now), \(bind: send.expiresAt)
              WHERE \(counted)
            )
            """
        for (index, write) in send.writes.enumerated() {
            query = query + ", \(unsafeRaw: "w\(index)") AS (" + write.statement(counted) + ")"
        }
        query = query + """
             SELECT (SELECT ok FROM target) AS below, (SELECT count(*) FROM gate) AS passed, (SELECT count(*) FROM counted) AS opened,
                    (SELECT next_allowed_at FROM otp_send_gates WHERE gate_key = \(bind: send.gateKey)) AS next_allowed_at
            """
        guard let row = try await sql.raw(query).first() else {
            throw AppError.internalError(detail: "The OTP send's statement returned no row")
        }
        if try row.decode(column: "opened", as: Int.self) > 0 { return .opened }
        if try row.decode(column: "passed", as: Int.self) > 0 { return .targetLimited }
        // The outer SELECT reads the gate as it was before the statement. The gate refuses first, as in the transaction.
        let before = try row.decode(column: "next_allowed_at", as: Int64?.self)
        guard try row.decode(column: "below", as: Bool.self) else {
            if let before, before > send.now { return .cooldown(nextAllowedAt: before) }
            return .targetLimited
        }
        return .cooldown(nextAllowedAt: before ?? next)
    }
}
