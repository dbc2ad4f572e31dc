import SQLKit
import TesseraCore

/// A user as stored.
struct UserRecord: Sendable {
    var id: String
    var clientId: String
    var userKey: String
    var name: String
    var email: String
    var phone: String
    var localAuthType: String
    var createdAt: Int64
    /// The scrypt hash of the identity's password (flow sign-ups that set one).
    var passwordHash: String? = nil
}

/// Storage of users. E-mail, phone and user key are unique per client by constraint.
struct SQLUserRepository: Sendable {
    func emailExists(clientId: String, email: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM users WHERE client_id = \(bind: clientId) AND email = \(bind: email)").first() != nil
    }

    func phoneExists(clientId: String, phone: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM users WHERE client_id = \(bind: clientId) AND phone = \(bind: phone)").first() != nil
    }

    func userKeyExists(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM users WHERE client_id = \(bind: clientId) AND user_key = \(bind: userKey)").first() != nil
    }

    func insert(_ user: UserRecord, in sql: any SQLDatabase) async throws {
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
    }

    func find(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> UserRecord? {
        guard let row = try await sql.raw(
            "SELECT id, client_id, user_key, name, email, phone, local_auth_type, created_at FROM users WHERE client_id = \(bind: clientId) AND user_key = \(bind: userKey)"
        ).first(decoding: Row.self) else { return nil }
        return UserRecord(
            id: row.id, clientId: row.client_id, userKey: row.user_key, name: row.name, email: row.email, phone: row.phone,
            localAuthType: row.local_auth_type, createdAt: row.created_at
        )
    }

    /// The identity as its sessions see it (a missing user is a session that no longer holds: 7101).
    func identity(userId: String, in sql: any SQLDatabase) async throws -> IdentityInfo {
        guard let row = try await sql.raw(
            "SELECT user_key, email, phone, name, password_hash FROM users WHERE id = \(bind: userId)"
        ).first() else { throw AppError(.sessionInvalid, .unauthorized, "Session missing or unknown") }
        return IdentityInfo(
            id: try row.decode(column: "user_key", as: String.self), email: try row.decode(column: "email", as: String.self),
            phoneNumber: try row.decode(column: "phone", as: String.self), name: try row.decode(column: "name", as: String.self),
            hasPassword: try row.decode(column: "password_hash", as: String?.self) != nil
        )
    }

    func updateLocalAuthType(userId: String, _ type: String, in sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE users SET local_auth_type = \(bind: type) WHERE id = \(bind: userId)").run()
    }

    func userKey(ofDevice deviceId: String, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw(
            "SELECT users.user_key FROM devices JOIN users ON users.id = devices.user_id WHERE devices.id = \(bind: deviceId)"
        ).first()?.decode(column: "user_key", as: String.self)
    }

    func count(clientId: String, in sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM users WHERE client_id = \(bind: clientId)").first()?.decode(column: "n", as: Int.self) ?? 0
    }
}
