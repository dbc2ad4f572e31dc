import SQLKit

/// ``AuditLog`` over SQLKit. On SQLite an append chains its rows at once: the single writer
/// (`BEGIN IMMEDIATE`) serialises appends. On PostgreSQL an append only inserts its events into
/// `audit_pending`, a row of their own that no other transaction touches, and the ``AuditSequencer``
/// chains them in batches (``sequencePending(limit:in:)``), holding the head row's lock once per batch
/// instead of once per audited change of every instance.
package struct SQLAuditRepository: AuditLog {
    package let kind: DatabaseKind
    package let clock: WallClock
    /// Woken after each append (the console's live view listens).
    package var appended: AuditAppendSignal? = nil
    /// Looks up the client and user keys of the rows read (nil: rows carry the IDs only).
    package var subjects: (any AuditSubjectKeys)? = nil

    /// On PostgreSQL: chains what appends leave in `audit_pending` (nil on SQLite, which chains at once).
    package private(set) var sequencer: AuditSequencer?

    /// With `database`, a PostgreSQL one gets its ``AuditSequencer`` (run it as a service; readers settle
    /// through it). Without, appends chain at once on either engine (tests of the chain itself).
    package init(
        kind: DatabaseKind,
        clock: WallClock,
        appended: AuditAppendSignal? = nil,
        subjects: (any AuditSubjectKeys)? = nil,
        database: (any Database)? = nil
    ) {
        self.kind = kind
        self.clock = clock
        self.appended = appended
        self.subjects = subjects
        if let database, database.kind == .postgres {
            sequencer = AuditSequencer(database: database, log: self)
        }
    }

    package static let columns = "seq, time, type, actor, client_id, user_id, device_id, session_id, details, prev_hash, hash"

    package func append(_ events: [AuditEvent], in sql: any SQLDatabase) async throws {
        guard !events.isEmpty else { return }
        if let sequencer {
            try await appendPending(events, in: sql)
            sequencer.wake()
            return
        }
        let lock: SQLQueryString = kind == .postgres ? " FOR UPDATE" : ""
        guard let row = try await sql.raw("SELECT seq, hash FROM audit_head WHERE id = 1" + lock).first() else {
            throw AppError.internalError(detail: "The audit log has no head row")
        }
        var seq = try row.decode(column: "seq", as: Int64.self)
        var hash = try row.decode(column: "hash", as: String.self)
        let time = clock.now()
        var insert: SQLQueryString = "INSERT INTO audit_log (\(unsafeRaw: Self.columns)) VALUES "
        for (index, event) in events.enumerated() {
            seq += 1
            let details = event.detailsJSON
            let prev = hash
            hash = AuditChain.hash(prevHash: prev, canonical: AuditChain.canonical(
                seq: seq, time: time, type: event.type, actor: event.actor, clientId: event.clientId, userId: event.userId,
                deviceId: event.deviceId, sessionId: event.sessionId, details: details
            ))
            if index > 0 { insert = insert + ", " }
            insert = insert + """
                (\(bind: seq), \(bind: time), \(bind: event.type), \(bind: event.actor), \(bind: event.clientId), \(bind: event.userId), \
                \(bind: event.deviceId), \(bind: event.sessionId), \(bind: details), \(bind: prev), \(bind: hash))
                """
        }
        let moveHead: SQLQueryString = "UPDATE audit_head SET seq = \(bind: seq), hash = \(bind: hash) WHERE id = 1"
        if kind == .postgres {
            // One statement, one round trip: the head stays locked (FOR UPDATE above) until COMMIT, and every
            // audited change of the deployment waits for it, so each round trip held here is paid by all of them.
            try await sql.raw("WITH appended AS (" + insert + ") " + moveHead).run()
        } else {
            try await sql.raw(insert).run()
            try await sql.raw(moveHead).run()
        }
        appended?.signal()
    }

    package func entries(_ query: AuditQuery, in sql: any SQLDatabase) async throws -> [AuditEntry] {
        try await sequencer?.settle()
        var statement: SQLQueryString = "SELECT \(unsafeRaw: Self.columns) FROM audit_log WHERE seq > \(bind: query.after)"
        if let type = query.type { statement = statement + " AND type = \(bind: type)" }
        if let subject = query.subject {
            // The subject as an ID, and the IDs it names as a client key or a user key.
            let named = try await subjects?.ids(named: subject, in: sql) ?? []
            if named.isEmpty {
                statement = statement
                    + " AND (client_id = \(bind: subject) OR user_id = \(bind: subject) OR device_id = \(bind: subject) OR session_id = \(bind: subject))"
            } else {
                let ids: [any Encodable & Sendable] = [subject] + named
                statement = statement
                    + " AND (client_id IN (\(binds: ids)) OR user_id IN (\(binds: ids)) OR device_id = \(bind: subject) OR session_id = \(bind: subject))"
            }
        }
        if let since = query.since { statement = statement + " AND time >= \(bind: since)" }
        statement = statement + " ORDER BY seq LIMIT \(bind: query.limit)"
        let entries = try await sql.raw(statement).all().map(Self.decode)
        guard query.named, let subjects, !entries.isEmpty else { return entries }
        return try await subjects.named(entries, in: sql)
    }

    package func head(in sql: any SQLDatabase) async throws -> AuditHead {
        try await sequencer?.settle()
        guard let row = try await sql.raw("SELECT seq, hash FROM audit_head WHERE id = 1").first() else {
            return AuditHead(seq: 0, hash: AuditChain.genesis)
        }
        return AuditHead(seq: try row.decode(column: "seq", as: Int64.self), hash: try row.decode(column: "hash", as: String.self))
    }

    package func insert(_ checkpoint: AuditCheckpoint, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO audit_checkpoints (seq, hash, time, key_id, signature)
            VALUES (\(bind: checkpoint.seq), \(bind: checkpoint.hash), \(bind: checkpoint.time), \(bind: checkpoint.keyId), \(bind: checkpoint.signature))
            ON CONFLICT (seq, key_id) DO NOTHING
            """
        ).run()
    }

    package func lastCheckpointSeq(in sql: any SQLDatabase) async throws -> Int64? {
        try await sql.raw("SELECT MAX(seq) AS seq FROM audit_checkpoints").first()?.decode(column: "seq", as: Int64?.self)
    }

    package func checkpoints(in sql: any SQLDatabase) async throws -> [AuditCheckpoint] {
        try await sql.raw("SELECT seq, hash, time, key_id, signature FROM audit_checkpoints ORDER BY seq, key_id").all().map { row in
            AuditCheckpoint(
                seq: try row.decode(column: "seq", as: Int64.self), hash: try row.decode(column: "hash", as: String.self),
                time: try row.decode(column: "time", as: Int64.self), keyId: try row.decode(column: "key_id", as: String.self),
                signature: try row.decode(column: "signature", as: String.self)
            )
        }
    }

    package static func decode(_ row: any SQLRow) throws -> AuditEntry {
        AuditEntry(
            seq: try row.decode(column: "seq", as: Int64.self), time: try row.decode(column: "time", as: Int64.self),
            type: try row.decode(column: "type", as: String.self), actor: try row.decode(column: "actor", as: String.self),
            clientId: try row.decode(column: "client_id", as: String?.self), userId: try row.decode(column: "user_id", as: String?.self),
            deviceId: try row.decode(column: "device_id", as: String?.self), sessionId: try row.decode(column: "session_id", as: String?.self),
            details: try row.decode(column: "details", as: String.self), prevHash: try row.decode(column: "prev_hash", as: String.self),
            hash: try row.decode(column: "hash", as: String.self)
        )
    }
}
