import Crypto
import Foundation
import Synchronization

/// The admin console's sign-ins, kept in this process's memory (a console session is per instance:
/// behind a load balancer without sticky sessions, sign in on each). A session is found by the
/// SHA-256 of its random cookie value (the value itself is not kept), carries its own CSRF token, ends
/// `lifetime` after sign-in or `idleTimeout` after its last use (on the injected clock), or at sign-out.
package final class ConsoleSessions: Sendable {
    /// One signed-in console.
    package struct Session: Sendable {
        package var csrf: String
        package var createdAt: Int64
        package var lastSeen: Int64
    }

    /// The cookie that carries the session id.
    package static let cookieName = "tessera_console"
    /// At most this many sessions are kept; the least recently used one goes first.
    package static let capacity = 1000

    package let clock: WallClock
    package let random: RandomSource
    package let lifetime: Duration
    package let idleTimeout: Duration
    private let sessions = Mutex<[String: Session]>([:])

    package init(clock: WallClock, random: RandomSource, lifetime: Duration = .seconds(8 * 3600), idleTimeout: Duration = .seconds(30 * 60)) {
        self.clock = clock
        self.random = random
        self.lifetime = lifetime
        self.idleTimeout = idleTimeout
    }

    /// Starts a session; returns the cookie value and the CSRF token (both shown only to the browser).
    package func create() -> (id: String, csrf: String) {
        let id = random.token(prefix: "tcs_")
        let csrf = random.token()
        let now = clock.now()
        sessions.withLock { sessions in
            sessions = sessions.filter { live($0.value, now: now) }
            if sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
                sessions[oldest] = nil
            }
            sessions[Self.key(id)] = Session(csrf: csrf, createdAt: now, lastSeen: now)
        }
        return (id, csrf)
    }

    /// The live session with this cookie value (its idle time restarts), or nil.
    package func touch(_ id: String) -> Session? {
        let now = clock.now()
        let key = Self.key(id)
        return sessions.withLock { sessions in
            guard var session = sessions[key] else { return nil }
            guard live(session, now: now) else {
                sessions[key] = nil
                return nil
            }
            session.lastSeen = now
            sessions[key] = session
            return session
        }
    }

    /// Ends the session with this cookie value.
    package func remove(_ id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: Self.key(id)) }
    }

    private func live(_ session: Session, now: Int64) -> Bool {
        now - session.createdAt < lifetime.millis && now - session.lastSeen < idleTimeout.millis
    }

    private static func key(_ id: String) -> String {
        SHA256.hash(data: Data(id.utf8)).hexString
    }
}
