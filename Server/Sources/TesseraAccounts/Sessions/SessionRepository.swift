import SQLKit
import TesseraCore

/// A session as stored (the token itself is never stored, only its keyed hash).
package struct SessionRecord: Sendable, Decodable {
    package var id: String
    package var token_hash: String
    package var user_id: String
    package var device_id: String?
    package var created_at: Int64
    package var last_used_at: Int64
    package var expires_at: Int64
    package var revoked_at: Int64?

    package func info(current: Bool) -> SessionInfo {
        SessionInfo(
            id: id, deviceId: device_id, createdAt: created_at, lastUsedAt: last_used_at, expiresAt: expires_at, revokedAt: revoked_at,
            current: current
        )
    }
}

/// A live session as introspection answers it.
package struct IntrospectedSession: Sendable, Decodable {
    package var created_at: Int64
    package var expires_at: Int64
    package var device_id: String?
    package var user_key: String
}

/// Storage of sessions, the one owner of the `sessions` table: opaque tokens kept only as keyed
/// hashes, with a public id for listing and revocation. Methods take the caller's transaction handle.
package protocol SessionRepository: Sendable {
    func insert(id: String, tokenHash: String, userId: String, deviceId: String?, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws
    /// The session with this token hash, its user's client and whether its device (if any) is revoked.
    func find(tokenHash: String, in sql: any SQLDatabase) async throws -> (SessionRecord, clientId: String, deviceRevoked: Bool)?
    /// Marks the session used, at most once a minute.
    func touch(tokenHash: String, now: Int64, in sql: any SQLDatabase) async throws
    func list(userId: String, in sql: any SQLDatabase) async throws -> [SessionRecord]
    /// Revokes one live session; `userId` limits it to that user's sessions. Returns whether one was revoked.
    func revoke(id: String, userId: String?, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Revokes every live session of a device (the device was revoked).
    func revokeAll(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws
    /// Deletes sessions that expired or were revoked before `cutoff` (live ones are kept whatever their age).
    func purge(endedBefore cutoff: Int64, in sql: any SQLDatabase) async throws
    /// Binds a live session that has no device yet to `deviceId`. Returns whether it did.
    func bindDevice(tokenHash: String, deviceId: String, in sql: any SQLDatabase) async throws -> Bool
    /// The session with this token hash if, for `clientId`, it is live (not revoked, not expired, used
    /// since `usedSince`) and its device is active.
    func introspect(tokenHash: String, clientId: String, now: Int64, usedSince: Int64, in sql: any SQLDatabase) async throws -> IntrospectedSession?
}

/// ``SessionRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLSessionRepository: SessionRepository {

    package init() {}

    package static let columns = "s.id, s.token_hash, s.user_id, s.device_id, s.created_at, s.last_used_at, s.expires_at, s.revoked_at"

    package func insert(id: String, tokenHash: String, userId: String, deviceId: String?, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO sessions (id, token_hash, user_id, device_id, created_at, last_used_at, expires_at)
            VALUES (\(bind: id), \(bind: tokenHash), \(bind: userId), \(bind: deviceId), \(bind: now), \(bind: now), \(bind: expiresAt))
            """
        ).run()
    }

    package func find(tokenHash: String, in sql: any SQLDatabase) async throws -> (SessionRecord, clientId: String, deviceRevoked: Bool)? {
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

    package func touch(tokenHash: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            "UPDATE sessions SET last_used_at = \(bind: now) WHERE token_hash = \(bind: tokenHash) AND last_used_at < \(bind: now - 60_000)"
        ).run()
    }

    package func list(userId: String, in sql: any SQLDatabase) async throws -> [SessionRecord] {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.columns) FROM sessions s WHERE s.user_id = \(bind: userId) ORDER BY s.created_at DESC, s.id"
        ).all(decoding: SessionRecord.self)
    }

    package func revoke(id: String, userId: String?, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        if let userId {
            return try await sql.raw(
                "UPDATE sessions SET revoked_at = \(bind: now) WHERE id = \(bind: id) AND user_id = \(bind: userId) AND revoked_at IS NULL RETURNING id"
            ).first() != nil
        }
        return try await sql.raw("UPDATE sessions SET revoked_at = \(bind: now) WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING id")
            .first() != nil
    }

    package func revokeAll(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE sessions SET revoked_at = \(bind: now) WHERE device_id = \(bind: deviceId) AND revoked_at IS NULL").run()
    }

    package func purge(endedBefore cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM sessions WHERE expires_at < \(bind: cutoff) OR revoked_at < \(bind: cutoff)").run()
    }

    package func bindDevice(tokenHash: String, deviceId: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE sessions SET device_id = \(bind: deviceId)
            WHERE token_hash = \(bind: tokenHash) AND device_id IS NULL AND revoked_at IS NULL RETURNING id
            """
        ).first() != nil
    }

    // Named joins (one round trip on a hot path; the only reads of `users` and `devices` outside their domains).

    package func introspect(tokenHash: String, clientId: String, now: Int64, usedSince: Int64, in sql: any SQLDatabase) async throws -> IntrospectedSession? {
        try await sql.raw(
            """
            SELECT s.created_at, s.expires_at, s.device_id, u.user_key FROM sessions s
            JOIN users u ON u.id = s.user_id JOIN devices d ON d.id = s.device_id
            WHERE s.token_hash = \(bind: tokenHash) AND s.revoked_at IS NULL AND s.expires_at > \(bind: now)
              AND s.last_used_at > \(bind: usedSince)
              AND d.status = 'active' AND u.client_id = \(bind: clientId)
            """
        ).first(decoding: IntrospectedSession.self)
    }
}
