import Foundation
import SQLKit
import TesseraCore

/// Password log-in for identities that set a password, with the limits of OTP codes: a try is
/// counted in the database before the password is compared, so at most `maxFailures` wrong
/// passwords in a row are ever evaluated, whatever the concurrency; then the identity is locked for
/// `lockout` (7111). Attempts per IP address are limited per hour (7112). An unknown identifier and a
/// wrong password give the same answer (7110) in about the same time.
struct PasswordLoginService: Sendable {
    let database: any Database
    let users = SQLUserRepository()
    let counters = RateCounters()
    let sessions: SessionService
    let passwords: PasswordHasher
    let clock: WallClock
    var maxFailures = 5
    var lockout: Duration = .seconds(900)
    var perIPHourlyLimit = 100

    static let invalid = AppError(.passwordInvalid, .unauthorized, "Wrong identifier or password")

    private enum Claim: Sendable {
        case claimed(userId: String, hash: String, failures: Int)
        case locked(until: Int64)
        case none
    }

    func login(client: Client, identifier: String, password: String, ip: String?) async throws -> SessionGrant {
        let now = clock.now()
        let channel: OTPChannel = identifier.contains("@") ? .email : .sms
        guard let target = try? TargetNormalizer.normalize(identifier, channel: channel), !password.isEmpty, password.count <= 1024 else {
            throw Self.invalid
        }
        let counters = self.counters, limit = perIPHourlyLimit
        if let ip {
            let count = try await database.withSQL { try await counters.increment("pwd-ip|\(ip)", now: now, window: .seconds(3600), in: $0) }
            if count > limit {
                throw AppError(
                    .passwordRateLimited, .tooManyRequests, "Too many log-ins from this address", retryAfter: Int(3600 - (now / 1000) % 3600)
                )
            }
        }
        let maxTries = maxFailures, lockoutMillis = lockout.millis
        let claim: Claim = try await database.transaction { sql in
            let column = channel == .email ? "email" : "phone"
            guard let row = try await sql.raw(
                """
                SELECT id, password_hash, password_failures, password_locked_until FROM users
                WHERE client_id = \(bind: client.id) AND \(unsafeRaw: column) = \(bind: target)
                """
            ).first() else { return .none }
            let userId = try row.decode(column: "id", as: String.self)
            guard try row.decode(column: "password_hash", as: String?.self) != nil else { return .none }
            if let until = try row.decode(column: "password_locked_until", as: Int64?.self), until <= now {
                // The lock is over: start counting again.
                try await sql.raw(
                    """
                    UPDATE users SET password_failures = 0, password_locked_until = NULL
                    WHERE id = \(bind: userId) AND password_locked_until = \(bind: until)
                    """
                ).run()
            }
            guard let claimed = try await sql.raw(
                """
                UPDATE users SET password_failures = password_failures + 1
                WHERE id = \(bind: userId) AND password_failures < \(bind: maxTries) AND password_hash IS NOT NULL
                RETURNING password_hash, password_failures
                """
            ).first() else {
                // Out of tries. The lock normally starts with the last wrong password; should that write
                // never have happened, it starts now, so a lock always ends.
                let until = try await sql.raw(
                    """
                    UPDATE users SET password_locked_until = COALESCE(password_locked_until, \(bind: now + lockoutMillis))
                    WHERE id = \(bind: userId) RETURNING password_locked_until
                    """
                ).first()?.decode(column: "password_locked_until", as: Int64?.self)
                return .locked(until: until ?? now + lockoutMillis)
            }
            return .claimed(
                userId: userId, hash: try claimed.decode(column: "password_hash", as: String.self),
                failures: try claimed.decode(column: "password_failures", as: Int.self)
            )
        }
        switch claim {
        case .none:
            try await passwords.burn(password)
            throw Self.invalid
        case .locked(let until):
            throw AppError(
                .passwordLocked, .tooManyRequests, "Too many wrong passwords; try again later", retryAfter: Int(max(1, (until - now + 999) / 1000))
            )
        case .claimed(let userId, let hash, let failures):
            guard try await passwords.verify(password, against: hash) else {
                if failures >= maxTries {
                    let until = now + lockout.millis
                    try await database.withSQL { sql in
                        try await sql.raw("UPDATE users SET password_locked_until = \(bind: until) WHERE id = \(bind: userId)").run()
                    }
                }
                throw Self.invalid
            }
            let sessions = self.sessions, users = self.users
            let (created, identity) = try await database.transaction { sql in
                try await sql.raw("UPDATE users SET password_failures = 0, password_locked_until = NULL WHERE id = \(bind: userId)").run()
                let created = try await sessions.create(userId: userId, deviceId: nil, now: now, in: sql)
                return (created, try await users.identity(userId: userId, in: sql))
            }
            return SessionGrant(sessionToken: created.token, sessionExpiresIn: created.expiresIn, identity: identity)
        }
    }
}
