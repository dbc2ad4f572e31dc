import Foundation
import Logging
import SQLKit
import TesseraCore

/// One back-channel logout to send (Back-Channel Logout 1.0 §2.5), as claimed by a worker.
package struct LogoutDelivery: Sendable, Equatable, Decodable {
    package var id: String
    package var session_id: String
    package var client_id: String
    package var client_key: String
    package var user_key: String
    package var uri: String
    package var attempts: Int
}

/// Sessions at Tessera and the back-channel logout outbox: the one owner of `oidc_sessions` and
/// `oidc_logout_outbox`. Ending a session revokes the tokens of its sign-ins and queues the logout
/// of its client in the same transaction, so a logout is sent exactly when a session ended.
package protocol OIDCSessionRepository: Sendable {
    /// The browser's live session with the client: not ended, not expired at `now`.
    func live(browserHash: String, clientId: String, at now: Int64) async throws -> OIDCSession?
    /// Every live session of the browser (one per client it signed in to).
    func live(browserHash: String, at now: Int64) async throws -> [OIDCSession]
    func session(id: String) async throws -> OIDCSession?
    /// A sign-in approved in a browser: the browser's live sessions move from `previousHash` (the cookie
    /// it came with) to `session.browserHash` (a fresh cookie); its live session with the client is kept
    /// (with the new `auth_time`) when it is the same user, or ended (and logged out) when it is another
    /// one, and `session` starts. Returns the `sid` in use.
    func signIn(_ session: OIDCSession, previousHash: String?, at now: Int64) async throws -> String
    /// Ends the sessions that are still live, revokes their tokens and queues their logouts, in one
    /// transaction. Returns the sessions this call ended.
    func end(ids: [String], at now: Int64) async throws -> [OIDCSession]
    /// Reserves up to `limit` due logouts for the worker `claimant`.
    func claimDue(limit: Int, claimant: String) async throws -> [LogoutDelivery]
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T
    /// Records logouts that need no more tries: `sent` or `dropped`.
    func settle(ids: [String], status: String) async throws
    func markFailed(id: String, attempts: Int, error: String, retryAfter: Duration?) async throws
    /// Logouts by status ('pending', 'sent', 'dropped', 'failed').
    func counts() async throws -> [String: Int]
    /// Removes sessions that expired or ended, and settled logouts, before `cutoff`.
    func purge(before cutoff: Int64) async throws
}

/// ``OIDCSessionRepository`` over SQLite or PostgreSQL.
package struct SQLOIDCSessionRepository: OIDCSessionRepository {
    package let database: any Database
    package let clock: WallClock
    package let random: RandomSource
    package var lease: Duration = .seconds(30)
    package var maxAttempts = 8

    package init(database: any Database, clock: WallClock, random: RandomSource) {
        self.database = database
        self.clock = clock
        self.random = random
    }

    private var queue: LeasedQueue {
        LeasedQueue(database: database, table: "oidc_logout_outbox", clock: clock, lease: lease, maxAttempts: maxAttempts)
    }

    private static let columns = "id, browser_hash, client_id, client_key, user_key, auth_time, amr, created_at, expires_at, ended_at"

    private static func decode(_ row: any SQLRow) throws -> OIDCSession {
        OIDCSession(
            id: try row.decode(column: "id", as: String.self), browserHash: try row.decode(column: "browser_hash", as: String.self),
            clientId: try row.decode(column: "client_id", as: String.self), clientKey: try row.decode(column: "client_key", as: String.self),
            userKey: try row.decode(column: "user_key", as: String.self),
            authTime: try row.decode(column: "auth_time", as: Int64.self),
            amr: try JSONDecoder().decode([String].self, from: Data(try row.decode(column: "amr", as: String.self).utf8)),
            createdAt: try row.decode(column: "created_at", as: Int64.self), expiresAt: try row.decode(column: "expires_at", as: Int64.self),
            endedAt: try row.decode(column: "ended_at", as: Int64?.self)
        )
    }

    package func live(browserHash: String, clientId: String, at now: Int64) async throws -> OIDCSession? {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM oidc_sessions WHERE browser_hash = \(bind: browserHash) AND client_id = \(bind: clientId)
                AND ended_at IS NULL AND expires_at > \(bind: now) ORDER BY created_at DESC LIMIT 1
                """
            ).first().map(Self.decode)
        }
    }

    package func live(browserHash: String, at now: Int64) async throws -> [OIDCSession] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM oidc_sessions WHERE browser_hash = \(bind: browserHash)
                AND ended_at IS NULL AND expires_at > \(bind: now) ORDER BY created_at
                """
            ).all().map(Self.decode)
        }
    }

    package func session(id: String) async throws -> OIDCSession? {
        try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM oidc_sessions WHERE id = \(bind: id)").first().map(Self.decode)
        }
    }

    package func signIn(_ session: OIDCSession, previousHash: String?, at now: Int64) async throws -> String {
        let amr = String(decoding: try JSONEncoder().encode(session.amr), as: UTF8.self)
        let random = self.random
        return try await database.transaction { sql -> String in
            if let previousHash, previousHash != session.browserHash {
                try await sql.raw(
                    """
                    UPDATE oidc_sessions SET browser_hash = \(bind: session.browserHash)
                    WHERE browser_hash = \(bind: previousHash) AND ended_at IS NULL AND expires_at > \(bind: now)
                    """
                ).run()
            }
            let current = try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM oidc_sessions WHERE browser_hash = \(bind: session.browserHash)
                AND client_id = \(bind: session.clientId) AND ended_at IS NULL AND expires_at > \(bind: now)
                """
            ).all().map(Self.decode)
            if let same = current.first(where: { $0.userKey == session.userKey }) {
                try await sql.raw(
                    """
                    UPDATE oidc_sessions SET auth_time = \(bind: session.authTime), amr = \(bind: amr), expires_at = \(bind: session.expiresAt)
                    WHERE id = \(bind: same.id)
                    """
                ).run()
                _ = try await Self.end(ids: current.filter { $0.id != same.id }.map(\.id), at: now, random: random, in: sql)
                return same.id
            }
            try await sql.raw(
                """
                INSERT INTO oidc_sessions (id, browser_hash, client_id, client_key, user_key, auth_time, amr, created_at, expires_at)
                VALUES (\(bind: session.id), \(bind: session.browserHash), \(bind: session.clientId), \(bind: session.clientKey), \(bind: session.userKey),
                        \(bind: session.authTime), \(bind: amr), \(bind: session.createdAt), \(bind: session.expiresAt))
                """
            ).run()
            // Another user signed in to the same client in this browser: that user's session ends, in the same transaction.
            _ = try await Self.end(ids: current.map(\.id), at: now, random: random, in: sql)
            return session.id
        }
    }

    package func end(ids: [String], at now: Int64) async throws -> [OIDCSession] {
        guard !ids.isEmpty else { return [] }
        let random = self.random
        return try await database.transaction { sql in try await Self.end(ids: ids, at: now, random: random, in: sql) }
    }

    /// Ends the live sessions of `ids` inside the caller's transaction: revokes their tokens and queues their logouts.
    private static func end(ids: [String], at now: Int64, random: RandomSource, in sql: any SQLDatabase) async throws -> [OIDCSession] {
        var ended: [OIDCSession] = []
        for id in Set(ids).sorted() {
            guard let session = try await sql.raw(
                "UPDATE oidc_sessions SET ended_at = \(bind: now) WHERE id = \(bind: id) AND ended_at IS NULL RETURNING \(unsafeRaw: Self.columns)"
            ).first().map(Self.decode) else { continue }
            ended.append(session)
            // RP-Initiated Logout: the app's tokens of this session stop working at once (the access token no longer reads userinfo).
            try await sql.raw("UPDATE oidc_tokens SET revoked_at = \(bind: now) WHERE session_id = \(bind: id) AND revoked_at IS NULL").run()
            try await sql.raw(
                "UPDATE oidc_refresh_tokens SET revoked_at = \(bind: now) WHERE session_id = \(bind: id) AND revoked_at IS NULL"
            ).run()
            guard let uri = try await sql.raw(
                "SELECT backchannel_logout_uri FROM oidc_clients WHERE client_id = \(bind: session.clientId) AND backchannel_logout_uri IS NOT NULL"
            ).first()?.decode(column: "backchannel_logout_uri", as: String.self) else { continue }
            try await sql.raw(
                """
                INSERT INTO oidc_logout_outbox (id, session_id, client_id, client_key, user_key, uri, status, attempts, next_attempt_at, created_at)
                VALUES (\(bind: random.identifier(prefix: "bcl_")), \(bind: id), \(bind: session.clientId),
                        \(bind: session.clientKey), \(bind: session.userKey), \(bind: uri), 'pending', 0, \(bind: now), \(bind: now))
                """
            ).run()
        }
        return ended
    }

    package func claimDue(limit: Int, claimant: String) async throws -> [LogoutDelivery] {
        try await queue.claimDue(
            limit: limit, claimant: claimant, returning: "id, session_id, client_id, client_key, user_key, uri, attempts", as: LogoutDelivery.self
        )
    }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await queue.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    package func settle(ids: [String], status: String) async throws {
        try await queue.settle(ids: ids, status: status)
    }

    package func markFailed(id: String, attempts: Int, error: String, retryAfter: Duration?) async throws {
        try await queue.markFailed(id: id, attempts: attempts, error: error, retryAfter: retryAfter)
    }

    package func counts() async throws -> [String: Int] {
        try await queue.counts()
    }

    package func purge(before cutoff: Int64) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM oidc_sessions WHERE expires_at < \(bind: cutoff) OR ended_at < \(bind: cutoff)").run()
            try await sql.raw("DELETE FROM oidc_logout_outbox WHERE status <> 'pending' AND created_at < \(bind: cutoff)").run()
        }
    }
}
