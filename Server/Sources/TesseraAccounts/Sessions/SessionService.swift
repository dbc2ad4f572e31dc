import SQLKit
import TesseraCore

/// Sessions (SPEC capability 6): opaque bearer tokens (`tss_…`) kept as keyed hashes, with an
/// absolute lifetime, an idle timeout and revocation; listed and revoked by their user and the admin.
public struct SessionService: Sendable {
    package let database: any Database
    package let repository: any SessionRepository
    package let users: any UserRepository
    package let audit: any AuditLog
    package let hasher: SecretHasher
    package let random: RandomSource
    package let clock: WallClock
    package var lifetime: Duration = .seconds(30 * 86400)
    package var idleTimeout: Duration = .seconds(7 * 86400)
    /// A session that has not registered a device key within this time expires: it only bridges the
    /// flow's finish or a password log-in to the device-key registration.
    package var pendingLifetime: Duration = .seconds(900)

    package init(
        database: any Database,
        repository: any SessionRepository,
        users: any UserRepository,
        audit: any AuditLog,
        hasher: SecretHasher,
        random: RandomSource,
        clock: WallClock,
        lifetime: Duration = .seconds(30 * 86400),
        idleTimeout: Duration = .seconds(7 * 86400),
        pendingLifetime: Duration = .seconds(900)
    ) {
        self.database = database
        self.repository = repository
        self.users = users
        self.audit = audit
        self.hasher = hasher
        self.random = random
        self.clock = clock
        self.lifetime = lifetime
        self.idleTimeout = idleTimeout
        self.pendingLifetime = pendingLifetime
    }

    package static let tokenDomain = "session-token"

    /// A new session's token (shown once) and its public id.
    package struct Created: Sendable {
        package var id: String
        package var token: String
        package var expiresIn: Int
    }

    /// The session an authenticated call carries.
    public struct Authenticated: Sendable {
        public var id: String
        public var userId: String
        public var deviceId: String?
        package var tokenHash: String

        /// Who acts in the audit log when this session makes a change: its device, else the session itself.
        package var auditActor: String { deviceId.map(AuditEvent.device) ?? "session:\(id)" }
    }

    /// Creates a session inside the caller's transaction.
    package func create(userId: String, deviceId: String?, now: Int64, in sql: any SQLDatabase) async throws -> Created {
        let token = random.token(prefix: "tss_")
        let id = random.identifier(prefix: "ses_")
        try await repository.insert(
            id: id, tokenHash: hasher.hash(token, domain: Self.tokenDomain), userId: userId, deviceId: deviceId, now: now,
            expiresAt: now + lifetime.millis, in: sql
        )
        return Created(id: id, token: token, expiresIn: Int(lifetime.components.seconds))
    }

    /// Checks a bearer token for `client`: unknown (7101), expired or idle (7102), revoked or its device
    /// revoked (7103). Marks the session used.
    package func authenticate(token: String, client: Client) async throws -> Authenticated {
        let hash = hasher.hash(token, domain: Self.tokenDomain)
        let repository = self.repository
        guard let (record, clientId, deviceRevoked) = try await database.read({ try await repository.find(tokenHash: hash, in: $0) }),
              clientId == client.id
        else {
            throw AppError.sessionInvalid()
        }
        let now = clock.now()
        if record.revoked_at != nil || deviceRevoked { throw AppError.sessionRevoked() }
        if !isLive(record, now: now) { throw AppError.sessionExpired() }
        if now - record.last_used_at > 60_000 {
            try await database.withSQL { try await repository.touch(tokenHash: hash, now: now, in: $0) }
        }
        return Authenticated(id: record.id, userId: record.user_id, deviceId: record.device_id, tokenHash: hash)
    }

    /// Whether a session that is not revoked is still within its lifetime, its idle timeout and, without
    /// a device key, its pending lifetime.
    package func isLive(_ record: SessionRecord, now: Int64) -> Bool {
        now < record.expires_at && now < record.last_used_at + idleTimeout.millis
            && (record.device_id != nil || now < record.created_at + pendingLifetime.millis)
    }

    /// The user's sessions, live ones first (newest first), then ended ones.
    package func list(userId: String, currentId: String?) async throws -> SessionList {
        let repository = self.repository, now = clock.now()
        let records = try await database.read { try await repository.list(userId: userId, in: $0) }
        let ordered = records.filter { $0.revoked_at == nil && isLive($0, now: now) } + records.filter { $0.revoked_at != nil || !isLive($0, now: now) }
        return SessionList(sessions: ordered.map { $0.info(current: $0.id == currentId) })
    }

    /// The calling session and its identity.
    package func current(_ session: Authenticated) async throws -> CurrentSession {
        let repository = self.repository, users = self.users
        return try await database.read { sql in
            guard let (record, _, _) = try await repository.find(tokenHash: session.tokenHash, in: sql) else {
                throw AppError.sessionInvalid()
            }
            return CurrentSession(session: record.info(current: true), identity: try await users.identity(userId: session.userId, in: sql))
        }
    }

    /// Revokes a session; `userId` limits it to that user's (7105 otherwise). `actor` is who does it,
    /// for the audit log: the admin unless told otherwise (a user's call passes its session's ``Authenticated/auditActor``).
    package func revoke(id: String, userId: String?, by actor: String = "admin") async throws {
        let repository = self.repository, audit = self.audit, now = clock.now()
        let revoked = try await database.transaction { sql in
            guard try await repository.revoke(id: id, userId: userId, now: now, in: sql) else { return false }
            try await audit.append(AuditEvent("session.revoked", actor: actor, userId: userId, sessionId: id), in: sql)
            return true
        }
        guard revoked else { throw AppError.sessionUnknown() }
    }
}
