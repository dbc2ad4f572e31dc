import SQLKit
import TesseraCore

/// A user as stored.
package struct UserRecord: Sendable {
    package var id: String
    package var clientId: String
    package var userKey: String
    package var name: String
    package var email: String
    package var phone: String
    package var localAuthType: String
    package var createdAt: Int64
    /// The scrypt hash of the identity's password (flow sign-ups that set one).
    package var passwordHash: String? = nil

    package init(
        id: String,
        clientId: String,
        userKey: String,
        name: String,
        email: String,
        phone: String,
        localAuthType: String,
        createdAt: Int64,
        passwordHash: String? = nil
    ) {
        self.id = id
        self.clientId = clientId
        self.userKey = userKey
        self.name = name
        self.email = email
        self.phone = phone
        self.localAuthType = localAuthType
        self.createdAt = createdAt
        self.passwordHash = passwordHash
    }
}

/// Where an identity's password stands (password log-in).
package struct PasswordState: Sendable, Equatable {
    package var userId: String
    package var hasPassword: Bool
    package var lockedUntil: Int64?
}

/// Storage of users, the one owner of the `users` table. E-mail, phone and user key are unique per
/// client by constraint. Methods take the caller's transaction handle, so a change that spans
/// domains (sign-up writes a user, a device and a session) stays one transaction.
package protocol UserRepository: Sendable {
    func emailExists(clientId: String, email: String, in sql: any SQLDatabase) async throws -> Bool
    func phoneExists(clientId: String, phone: String, in sql: any SQLDatabase) async throws -> Bool
    func userKeyExists(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> Bool
    func insert(_ user: UserRecord, in sql: any SQLDatabase) async throws
    func find(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> UserRecord?
    /// The user of `clientId` with this e-mail address (the hosted sign-in page's identifier).
    func find(clientId: String, email: String, in sql: any SQLDatabase) async throws -> UserRecord?
    /// A client's users ordered by user key, `limit` of them after the user key `after`.
    func page(clientId: String, after: String, limit: Int, in sql: any SQLDatabase) async throws -> [UserRecord]
    func identity(userId: String, in sql: any SQLDatabase) async throws -> IdentityInfo
    func count(clientId: String, in sql: any SQLDatabase) async throws -> Int
    /// The user key of each of these user IDs that exists (the audit log's rows and webhooks name the user by it).
    func userKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String]
    /// The IDs of the users with this user key, one per client that has it (an audit subject filter).
    func userIds(userKey: String, in sql: any SQLDatabase) async throws -> [String]

    // Password log-in: every try is counted by one conditional write before the password is compared.
    /// The password state of the client's identity whose e-mail (or phone) is `target`.
    func passwordState(clientId: String, channel: OTPChannel, target: String, in sql: any SQLDatabase) async throws -> PasswordState?
    /// Ends a lock that is over (only the lock that ended at `lockedUntil`) and starts counting again.
    func endPasswordLock(userId: String, lockedUntil: Int64, in sql: any SQLDatabase) async throws
    /// Counts one try while fewer than `maxFailures` were counted; nil when out of tries. Returns the
    /// password hash and the tries counted (this one included).
    func claimPasswordTry(userId: String, maxFailures: Int, in sql: any SQLDatabase) async throws -> (hash: String, failures: Int)?
    /// Starts the lock at `until` unless one is set; returns the lock's end.
    func startPasswordLock(userId: String, until: Int64, in sql: any SQLDatabase) async throws -> Int64?
    /// Sets the lock's end (the last wrong password).
    func lockPassword(userId: String, until: Int64, in sql: any SQLDatabase) async throws
    /// Clears the failure count and the lock (a right password).
    func resetPasswordFailures(userId: String, in sql: any SQLDatabase) async throws
}

/// ``UserRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLUserRepository: UserRepository {

    package init() {}

    package func emailExists(clientId: String, email: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM users WHERE client_id = \(bind: clientId) AND email = \(bind: email)").first() != nil
    }

    package func phoneExists(clientId: String, phone: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM users WHERE client_id = \(bind: clientId) AND phone = \(bind: phone)").first() != nil
    }

    package func userKeyExists(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM users WHERE client_id = \(bind: clientId) AND user_key = \(bind: userKey)").first() != nil
    }

    package func insert(_ user: UserRecord, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO users (id, client_id, user_key, name, email, phone, local_auth_type, agreed_at, created_at, password_hash)
            VALUES (\(bind: user.id), \(bind: user.clientId), \(bind: user.userKey), \(bind: user.name), \(bind: user.email),
                    \(bind: user.phone), \(bind: user.localAuthType), \(bind: user.createdAt), \(bind: user.createdAt),
                    \(bind: user.passwordHash))
            """
        ).run()
    }

    private struct Row: Decodable {
        var id: String
        var client_id: String
        var user_key: String
        var name: String
        var email: String
        var phone: String
        var local_auth_type: String
        var created_at: Int64

        var record: UserRecord {
            UserRecord(
                id: id, clientId: client_id, userKey: user_key, name: name, email: email, phone: phone, localAuthType: local_auth_type,
                createdAt: created_at
            )
        }
    }

    package func find(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> UserRecord? {
        guard let row = try await sql.raw(
            "SELECT id, client_id, user_key, name, email, phone, local_auth_type, created_at FROM users WHERE client_id = \(bind: clientId) AND user_key = \(bind: userKey)"
        ).first(decoding: Row.self) else { return nil }
        return row.record
    }

    package func find(clientId: String, email: String, in sql: any SQLDatabase) async throws -> UserRecord? {
        guard !email.isEmpty, let row = try await sql.raw(
            "SELECT id, client_id, user_key, name, email, phone, local_auth_type, created_at FROM users WHERE client_id = \(bind: clientId) AND email = \(bind: email)"
        ).first(decoding: Row.self) else { return nil }
        return row.record
    }

    package func page(clientId: String, after: String, limit: Int, in sql: any SQLDatabase) async throws -> [UserRecord] {
        try await sql.raw(
            """
            SELECT id, client_id, user_key, name, email, phone, local_auth_type, created_at FROM users
            WHERE client_id = \(bind: clientId) AND user_key > \(bind: after) ORDER BY user_key LIMIT \(bind: limit)
            """
        ).all(decoding: Row.self).map(\.record)
    }

    package func identity(userId: String, in sql: any SQLDatabase) async throws -> IdentityInfo {
        guard let row = try await sql.raw(
            "SELECT user_key, email, phone, name, password_hash FROM users WHERE id = \(bind: userId)"
        ).first() else { throw AppError.sessionInvalid() }
        return IdentityInfo(
            id: try row.decode(column: "user_key", as: String.self), email: try row.decode(column: "email", as: String.self),
            phoneNumber: try row.decode(column: "phone", as: String.self), name: try row.decode(column: "name", as: String.self),
            hasPassword: try row.decode(column: "password_hash", as: String?.self) != nil
        )
    }

    package func count(clientId: String, in sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM users WHERE client_id = \(bind: clientId)").first()?.decode(column: "n", as: Int.self) ?? 0
    }

    package func userKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let binds: [any Encodable & Sendable] = ids
        var keys: [String: String] = [:]
        for row in try await sql.raw("SELECT id, user_key FROM users WHERE id IN (\(binds: binds))").all() {
            keys[try row.decode(column: "id", as: String.self)] = try row.decode(column: "user_key", as: String.self)
        }
        return keys
    }

    package func userIds(userKey: String, in sql: any SQLDatabase) async throws -> [String] {
        try await sql.raw("SELECT id FROM users WHERE user_key = \(bind: userKey) ORDER BY id LIMIT 100").all().map {
            try $0.decode(column: "id", as: String.self)
        }
    }

    package func passwordState(clientId: String, channel: OTPChannel, target: String, in sql: any SQLDatabase) async throws -> PasswordState? {
        let column = channel == .email ? "email" : "phone"
        guard let row = try await sql.raw(
            """
            SELECT id, password_hash, password_failures, password_locked_until FROM users
            WHERE client_id = \(bind: clientId) AND \(unsafeRaw: column) = \(bind: target)
            """
        ).first() else { return nil }
        return PasswordState(
            userId: try row.decode(column: "id", as: String.self), hasPassword: try row.decode(column: "password_hash", as: String?.self) != nil,
            lockedUntil: try row.decode(column: "password_locked_until", as: Int64?.self)
        )
    }

    package func endPasswordLock(userId: String, lockedUntil: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE users SET password_failures = 0, password_locked_until = NULL
            WHERE id = \(bind: userId) AND password_locked_until = \(bind: lockedUntil)
            """
        ).run()
    }

    package func claimPasswordTry(userId: String, maxFailures: Int, in sql: any SQLDatabase) async throws -> (hash: String, failures: Int)? {
        guard let claimed = try await sql.raw(
            """
            UPDATE users SET password_failures = password_failures + 1
            WHERE id = \(bind: userId) AND password_failures < \(bind: maxFailures) AND password_hash IS NOT NULL
            RETURNING password_hash, password_failures
            """
        ).first() else { return nil }
        return (try claimed.decode(column: "password_hash", as: String.self), try claimed.decode(column: "password_failures", as: Int.self))
    }

    package func startPasswordLock(userId: String, until: Int64, in sql: any SQLDatabase) async throws -> Int64? {
        try await sql.raw(
            """
            UPDATE users SET password_locked_until = COALESCE(password_locked_until, \(bind: until))
            WHERE id = \(bind: userId) RETURNING password_locked_until
            """
        ).first()?.decode(column: "password_locked_until", as: Int64?.self)
    }

    package func lockPassword(userId: String, until: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET password_locked_until = \(bind: until) WHERE id = \(bind: userId)").run()
    }

    package func resetPasswordFailures(userId: String, in sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET password_failures = 0, password_locked_until = NULL WHERE id = \(bind: userId)").run()
    }
}
