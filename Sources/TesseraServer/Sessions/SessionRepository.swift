import SQLKit

/// Storage of sessions: opaque tokens kept only as keyed hashes.
struct SQLSessionRepository: Sendable {
    func insert(tokenHash: String, userId: String, deviceId: String?, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO sessions (token_hash, user_id, device_id, created_at, expires_at)
            VALUES (\(bind: tokenHash), \(bind: userId), \(bind: deviceId), \(bind: now), \(bind: expiresAt))
            """
        ).run()
    }
}
