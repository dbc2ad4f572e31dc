import SQLKit
import TesseraStorage

/// The PostgreSQL side of ``SQLAuditRepository``: appends leave their events in `audit_pending`, and
/// the ``AuditSequencer`` moves them into the chain in batches.
extension SQLAuditRepository {
    /// Inserts `events` into `audit_pending` in order, inside the caller's transaction: rows that no other
    /// transaction writes, so audited changes no longer wait for each other. Their `id`s (a sequence) keep
    /// the order of the appends.
    func appendPending(_ events: [AuditEvent], in sql: any SQLDatabase) async throws {
        let time = clock.now()
        var insert: SQLQueryString = """
            INSERT INTO audit_pending (time, type, actor, client_id, user_id, device_id, session_id, details) VALUES 
            """
        for (position, event) in events.enumerated() {
            if position > 0 { insert = insert + ", " }
            insert = insert + """
                (\(bind: time), \(bind: event.type), \(bind: event.actor), \(bind: event.clientId), \
                \(bind: event.userId), \(bind: event.deviceId), \(bind: event.sessionId), \(bind: event.detailsJSON))
                """
        }
        try await sql.raw(insert).run()
    }

    /// The events of a batch's selected positions inserted into `audit_pending`, in the batch's order, by a statement
    /// that another owner composes (the arrays bound whole; an absent ID travels as an empty string, which no ID is);
    /// the sequencer is woken once it committed. Nil on SQLite (appends chain at once).
    package func composedAppend(_ events: [AuditEvent], in sql: any SQLDatabase) async throws -> ComposedWrite? {
        guard let sequencer else { return nil }
        let time = clock.now()
        let types = events.map(\.type), actors = events.map(\.actor), clients = events.map { $0.clientId ?? "" }
        let users = events.map { $0.userId ?? "" }, devices = events.map { $0.deviceId ?? "" }
        let sessions = events.map { $0.sessionId ?? "" }, details = events.map(\.detailsJSON)
        return ComposedWrite(
            statement: { selected in
                """
                INSERT INTO audit_pending (time, type, actor, client_id, user_id, device_id, session_id, details)
                SELECT \(bind: time), e.type, e.actor, NULLIF(e.client_id, ''), NULLIF(e.user_id, ''), NULLIF(e.device_id, ''),
                       NULLIF(e.session_id, ''), e.details
                FROM unnest(\(bind: types)::text[], \(bind: actors)::text[], \(bind: clients)::text[], \(bind: users)::text[],
                            \(bind: devices)::text[], \(bind: sessions)::text[], \(bind: details)::text[])
                  WITH ORDINALITY AS e(type, actor, client_id, user_id, device_id, session_id, details, ord)
                WHERE e.ord IN \(selected)
                ORDER BY e.ord
                """
            },
            committed: { sequencer.wake() }
        )
    }

    /// Whether any event waits in `audit_pending` (a read without a lock: the cheap question before a
    /// ``sequencePending(limit:in:)`` that takes the head's lock).
    package func hasPending(in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM audit_pending ORDER BY id LIMIT 1").first() != nil
    }

    /// Chains up to `limit` pending events, in the order of their appends (`id`), after
    /// the head, inside the caller's transaction: the head is read `FOR UPDATE`, so two sequencers (two
    /// instances) take turns and the second sees what the first moved. Returns how many were moved.
    package func sequencePending(limit: Int, in sql: any SQLDatabase) async throws -> Int {
        guard let row = try await sql.raw("SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE").first() else {
            throw AppError.internalError(detail: "The audit log has no head row")
        }
        var seq = try row.decode(column: "seq", as: Int64.self)
        var hash = try row.decode(column: "hash", as: String.self)
        let taken = try await sql.raw(
            """
            DELETE FROM audit_pending WHERE id IN (SELECT id FROM audit_pending ORDER BY id LIMIT \(bind: limit))
            RETURNING id, time, type, actor, client_id, user_id, device_id, session_id, details
            """
        ).all().map(Pending.init)
        guard !taken.isEmpty else { return 0 }
        var insert: SQLQueryString = "INSERT INTO audit_log (\(unsafeRaw: Self.columns)) VALUES "
        for (index, event) in taken.sorted().enumerated() {
            seq += 1
            let prev = hash
            hash = AuditChain.hash(prevHash: prev, canonical: AuditChain.canonical(
                seq: seq, time: event.time, type: event.type, actor: event.actor, clientId: event.clientId, userId: event.userId,
                deviceId: event.deviceId, sessionId: event.sessionId, details: event.details
            ))
            if index > 0 { insert = insert + ", " }
            insert = insert + """
                (\(bind: seq), \(bind: event.time), \(bind: event.type), \(bind: event.actor), \(bind: event.clientId), \(bind: event.userId), \
                \(bind: event.deviceId), \(bind: event.sessionId), \(bind: event.details), \(bind: prev), \(bind: hash))
                """
        }
        try await sql.raw(insert).run()
        try await sql.raw("UPDATE audit_head SET seq = \(bind: seq), hash = \(bind: hash) WHERE id = 1").run()
        return taken.count
    }

    /// One row of `audit_pending`.
    private struct Pending: Comparable {
        let id: Int64, time: Int64
        let type: String, actor: String, clientId: String?, userId: String?, deviceId: String?, sessionId: String?, details: String

        init(_ row: any SQLRow) throws {
            id = try row.decode(column: "id", as: Int64.self)
            time = try row.decode(column: "time", as: Int64.self)
            type = try row.decode(column: "type", as: String.self)
            actor = try row.decode(column: "actor", as: String.self)
            clientId = try row.decode(column: "client_id", as: String?.self)
            userId = try row.decode(column: "user_id", as: String?.self)
            deviceId = try row.decode(column: "device_id", as: String?.self)
            sessionId = try row.decode(column: "session_id", as: String?.self)
            details = try row.decode(column: "details", as: String.self)
        }

        static func < (a: Pending, b: Pending) -> Bool { a.id < b.id }
        static func == (a: Pending, b: Pending) -> Bool { a.id == b.id }
    }
}
