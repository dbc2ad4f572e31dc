import SQLKit
import TesseraCore

/// A session as stored (the token itself is never stored, only its keyed hash).
struct SessionRecord: Sendable, Decodable {
    var id: String
    var token_hash: String
    var user_id: String
    var device_id: String?
    var created_at: Int64
    var last_used_at: Int64
    var expires_at: Int64
    var revoked_at: Int64?

    func info(current: Bool) -> SessionInfo {
        SessionInfo(
            id: id, deviceId: device_id, createdAt: created_at, lastUsedAt: last_used_at, expiresAt: expires_at, revokedAt: revoked_at,
            current: current
        )
    }
}

/// Storage of sessions: opaque tokens kept only as keyed hashes, with a public id for listing and revocation.
struct SQLSessionRepository: Sendable {
    static let columns = "s.id, s.token_hash, s.user_id, s.device_id, s.created_at, s.last_used_at, s.expires_at, s.revoked_at"

    func insert(id: String, tokenHash: String, userId: String, deviceId: String?, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO sessions (id, token_hash, user_id, device_id, created_at, last_used_at, expires_at)
            VALUES (\(bind: id), \(bind: tokenHash), \(bind: userId), \(bind: deviceId), \(bind: now), \(bind: now), \(bind: expiresAt))
            """
        ).run()
    }

    /// The session with this token hash, its user's client and whether its device (if any) is revoked.
    func find(tokenHash: String, in sql: any SQLDatabase) async throws -> (SessionRecord, clientId: String, deviceRevoked: Bool)? {
        guard let row = try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns), u.client_id, d.status AS device_status
            FROM sessions s JOIN users u ON u.id = s.user_id LEFT JOIN devices d ON d.id = s.device_id
            WHERE s.token_hash = \(bind: tokenHash)
            """
        ).first() else { return nil }
        let record = try row.decode(model: SessionRecord.self)
        let status = try row.decodeNil(column: "device_status") ? nil : try row.decode(column: "device_status", as: String.self)
        return (record, try row.decode(column: "client_id", as: String.self), status == "revoked")
    }

    /// Marks the session used, at most once a minute.
    func touch(tokenHash: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE sessions SET last_used_at = \(bind: now) WHERE token_hash = \(bind: tokenHash) AND last_used_at < \(bind: now - 60_000)"
        ).run()
    }

    func list(userId: String, in sql: any SQLDatabase) async throws -> [SessionRecord] {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.columns) FROM sessions s WHERE s.user_id = \(bind: userId) ORDER BY s.created_at DESC, s.id"
        ).all(decoding: SessionRecord.self)
    }

    /// Revokes one live session; `userId` limits it to that user's sessions. Returns whether one was revoked.
    func revoke(id: String, userId: String?, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        if let userId {
            return try await sql.raw(
                "UPDATE sessions SET revoked_at = \(bind: now) WHERE id = \(bind: id) AND user_id = \(bind: userId) AND revoked_at IS NULL RETURNING id"
            ).first() != nil
        }
        return try await sql.raw("UPDATE sessions SET revoked_at = \(bind: now) WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING id")
            .first() != nil
    }

    /// Deletes sessions that expired or were revoked before `cutoff` (live ones are kept whatever their age).
    static func purge(endedBefore cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM sessions WHERE expires_at < \(bind: cutoff) OR revoked_at < \(bind: cutoff)").run()
    }

    /// Binds a live session that has no device yet to `deviceId`. Returns whether it did.
    func bindDevice(tokenHash: String, deviceId: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE sessions SET device_id = \(bind: deviceId)
            WHERE token_hash = \(bind: tokenHash) AND device_id IS NULL AND revoked_at IS NULL RETURNING id
            """
        ).first() != nil
    }
}
