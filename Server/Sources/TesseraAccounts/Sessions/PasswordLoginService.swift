import Foundation
import SQLKit
import TesseraCore

/// Password log-in for identities that set a password, with the limits of OTP codes: a try is
/// counted in the database before the password is compared, so at most `maxFailures` wrong
/// passwords in a row are ever evaluated, whatever the concurrency; then the identity is locked for
/// `lockout` (7111). Attempts per IP address are limited per hour (7112). An unknown identifier and a
/// wrong password give the same answer (7110) in about the same time.
package struct PasswordLoginService: Sendable {
    package let database: any Database
    package let users: any UserRepository
    package let audit: any AuditLog
    package let counters = RateCounters()
    package let sessions: SessionService
    package let passwords: PasswordHasher
    package let clock: WallClock
    package var maxFailures = 5
    package var lockout: Duration = .seconds(900)
    package var perIPHourlyLimit = 100

    package init(
        database: any Database,
        users: any UserRepository,
        audit: any AuditLog,
        sessions: SessionService,
        passwords: PasswordHasher,
        clock: WallClock,
        maxFailures: Int = 5,
        lockout: Duration = .seconds(900),
        perIPHourlyLimit: Int = 100
    ) {
        self.database = database
        self.users = users
        self.audit = audit
        self.sessions = sessions
        self.passwords = passwords
        self.clock = clock
        self.maxFailures = maxFailures
        self.lockout = lockout
        self.perIPHourlyLimit = perIPHourlyLimit
    }

    package static let invalid = AppError.passwordInvalid()

    private enum Claim: Sendable {
        case claimed(userId: String, hash: String, failures: Int)
        case locked(until: Int64)
        case none
    }

    package func login(client: Client, identifier: String, password: String, ip: String?) async throws -> SessionGrant {
        let userId = try await verify(client: client, identifier: identifier, password: password, ip: ip)
        let now = clock.now(), users = self.users, audit = self.audit, sessions = self.sessions
        let (created, identity) = try await database.transaction { sql in
            try await users.resetPasswordFailures(userId: userId, in: sql)
            let created = try await sessions.create(userId: userId, deviceId: nil, now: now, in: sql)
            let identity = try await users.identity(userId: userId, in: sql)
            try await audit.append(
                AuditEvent(
                    "session.created", actor: "session:\(created.id)", clientId: client.id, userId: userId, sessionId: created.id,
                    details: ["method": "password"]
                ),
                in: sql
            )
            return (created, identity)
        }
        return SessionGrant(sessionToken: created.token, sessionExpiresIn: created.expiresIn, identity: identity)
    }

    /// The user whose password `password` is (the ID), with every limit of ``login(client:identifier:password:ip:)``:
    /// 7110 for an unknown identifier or a wrong password alike, 7111 while locked, 7112 past the per-IP limit (with
    /// `ip`). The failures are counted; a right password does not reset them (the caller does, in its transaction).
    package func verify(client: Client, identifier: String, password: String, ip: String?) async throws -> String {
        let now = clock.now()
        let channel: OTPChannel = identifier.contains("@") ? .email : .sms
        guard let target = try? TargetNormalizer.normalize(identifier, channel: channel), !password.isEmpty, password.count <= 1024 else {
            throw Self.invalid
        }
        let counters = self.counters, limit = perIPHourlyLimit
        if let ip {
            let count = try await database.withSQL { try await counters.increment("pwd-ip|\(ip)", shared: true, now: now, window: .seconds(3600), in: $0) }
            if count > limit {
                throw AppError.passwordRateLimited(retryAfter: Int(3600 - (now / 1000) % 3600))
            }
        }
        let maxTries = maxFailures, lockoutMillis = lockout.millis
        let users = self.users, audit = self.audit
        let claim: Claim = try await database.transaction { sql in
            guard let state = try await users.passwordState(clientId: client.id, channel: channel, target: target, in: sql), state.hasPassword
            else { return .none }
            let userId = state.userId
            if let until = state.lockedUntil, until <= now {
                // The lock is over: start counting again.
                try await users.endPasswordLock(userId: userId, lockedUntil: until, in: sql)
            }
            guard let claimed = try await users.claimPasswordTry(userId: userId, maxFailures: maxTries, in: sql) else {
                // Out of tries. The lock normally starts with the last wrong password; should that write
                // never have happened, it starts now, so a lock always ends.
                let until = try await users.startPasswordLock(userId: userId, until: now + lockoutMillis, in: sql)
                return .locked(until: until ?? now + lockoutMillis)
            }
            return .claimed(userId: userId, hash: claimed.hash, failures: claimed.failures)
        }
        switch claim {
        case .none:
            try await passwords.burn(password)
            throw Self.invalid
        case .locked(let until):
            throw AppError.passwordLocked(retryAfter: Int(max(1, (until - now + 999) / 1000)))
        case .claimed(let userId, let hash, let failures):
            guard try await passwords.verify(password, against: hash) else {
                if failures >= maxTries {
                    let until = now + lockout.millis
                    try await database.transaction { sql in
                        try await users.lockPassword(userId: userId, until: until, in: sql)
                        try await audit.append(
                            AuditEvent("password.locked", actor: "system", clientId: client.id, userId: userId, details: ["failures": String(failures)]),
                            in: sql
                        )
                    }
                }
                throw Self.invalid
            }
            return userId
        }
    }

    /// Resets the user's count of wrong passwords (after a right one).
    package func succeeded(userId: String) async throws {
        let users = self.users
        try await database.transaction { sql in try await users.resetPasswordFailures(userId: userId, in: sql) }
    }
}
