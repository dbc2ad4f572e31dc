import SQLKit
import TesseraCore

/// A backchannel authentication request as stored.
package struct CIBARequestRecord: Sendable, Equatable {
    package var idHash: String
    package var clientId: String
    /// The relying-party request it became; nil when the hint named no one.
    package var channelId: String?
    package var scope: String
    package var createdAt: Int64
    package var expiresAt: Int64
    package var intervalMillis: Int64
    package var polledAt: Int64?
    package var usedAt: Int64?

    package init(
        idHash: String, clientId: String, channelId: String?, scope: String, createdAt: Int64, expiresAt: Int64, intervalMillis: Int64,
        polledAt: Int64? = nil, usedAt: Int64? = nil
    ) {
        self.idHash = idHash
        self.clientId = clientId
        self.channelId = channelId
        self.scope = scope
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.intervalMillis = intervalMillis
        self.polledAt = polledAt
        self.usedAt = usedAt
    }
}

/// Storage of CIBA requests, the one owner of `ciba_requests`. Methods take the caller's transaction handle.
package protocol CIBARepository: Sendable {
    func insert(_ record: CIBARequestRecord, in sql: any SQLDatabase) async throws
    func find(idHash: String, clientId: String, in sql: any SQLDatabase) async throws -> CIBARequestRecord?
    /// Records a poll at `now` when the last one is at least the interval ago (true); otherwise raises the interval
    /// by `raise` milliseconds and answers false (`slow_down`).
    func poll(idHash: String, now: Int64, raise: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Marks the request used; false when it was already (a second poll that raced this one).
    func markUsed(idHash: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Takes back a mark of `markUsed` whose tokens could not be issued, so that the client may poll again.
    func unmarkUsed(idHash: String, in sql: any SQLDatabase) async throws
    /// Deletes requests that expired before `before` (the janitor).
    func purge(before: Int64, in sql: any SQLDatabase) async throws
}

/// ``CIBARepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLCIBARepository: CIBARepository {
    package init() {}

    struct Row: Decodable {
        var id_hash: String
        var client_id: String
        var channel_id: String?
        var scope: String
        var created_at: Int64
        var expires_at: Int64
        var interval_ms: Int64
        var polled_at: Int64?
        var used_at: Int64?
    }

    package func insert(_ r: CIBARequestRecord, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO ciba_requests (id_hash, client_id, channel_id, scope, created_at, expires_at, interval_ms, polled_at, used_at)
            VALUES (\(bind: r.idHash), \(bind: r.clientId), \(bind: r.channelId), \(bind: r.scope), \(bind: r.createdAt), \(bind: r.expiresAt),
                    \(bind: r.intervalMillis), NULL, NULL)
            """
        ).run()
    }

    package func find(idHash: String, clientId: String, in sql: any SQLDatabase) async throws -> CIBARequestRecord? {
        guard let row = try await sql.raw(
            """
            SELECT id_hash, client_id, channel_id, scope, created_at, expires_at, interval_ms, polled_at, used_at FROM ciba_requests
            WHERE id_hash = \(bind: idHash) AND client_id = \(bind: clientId)
            """
        ).first(decoding: Row.self) else { return nil }
        return CIBARequestRecord(
            idHash: row.id_hash, clientId: row.client_id, channelId: row.channel_id, scope: row.scope, createdAt: row.created_at,
            expiresAt: row.expires_at, intervalMillis: row.interval_ms, polledAt: row.polled_at, usedAt: row.used_at
        )
    }

    package func poll(idHash: String, now: Int64, raise: Int64, in sql: any SQLDatabase) async throws -> Bool {
        let polled = try await sql.raw(
            """
            UPDATE ciba_requests SET polled_at = \(bind: now)
            WHERE id_hash = \(bind: idHash) AND (polled_at IS NULL OR polled_at + interval_ms <= \(bind: now)) RETURNING id_hash
            """
        ).first()
        if polled != nil { return true }
        try await sql.raw(
            "UPDATE ciba_requests SET interval_ms = interval_ms + \(bind: raise), polled_at = \(bind: now) WHERE id_hash = \(bind: idHash)"
        ).run()
        return false
    }

    package func markUsed(idHash: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "UPDATE ciba_requests SET used_at = \(bind: now) WHERE id_hash = \(bind: idHash) AND used_at IS NULL RETURNING id_hash"
        ).first() != nil
    }

    package func unmarkUsed(idHash: String, in sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE ciba_requests SET used_at = NULL WHERE id_hash = \(bind: idHash)").run()
    }

    package func purge(before: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM ciba_requests WHERE expires_at < \(bind: before)").run()
    }
}
