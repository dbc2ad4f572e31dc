import SQLKit
import TesseraCore

/// Storage of authenticators, the one owner of the `authenticators` table. At most one active
/// authenticator per device and type, by a partial unique index. Methods take the caller's
/// transaction handle.
package protocol AuthenticatorRepository: Sendable {
    func insert(_ info: AuthenticatorInfo, userId: String, in sql: any SQLDatabase) async throws
    /// The device's active authenticators, oldest first.
    func list(deviceId: String, in sql: any SQLDatabase) async throws -> [AuthenticatorInfo]
    /// The user's active authenticators on the devices `deviceIds` (its active ones), oldest first.
    func list(userId: String, deviceIds: [String], in sql: any SQLDatabase) async throws -> [AuthenticatorInfo]
    func delete(id: String, deviceId: String?, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Stores a single-use challenge for an authenticator.
    func insertChallenge(_ challenge: AuthenticatorChallenge, in sql: any SQLDatabase) async throws
    /// Marks the challenge used and returns it, when it is this device's, unused and not expired at
    /// `now`; nil otherwise (a second use finds nothing).
    func consumeChallenge(id: String, deviceId: String, now: Int64, in sql: any SQLDatabase) async throws -> AuthenticatorChallenge?
    /// Deletes challenges that expired before `before` (the janitor).
    func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws
}

/// A challenge an authenticator key signs to log in.
package struct AuthenticatorChallenge: Sendable, Equatable, Decodable {
    package var id: String
    package var authenticator_id: String
    package var device_id: String
    package var challenge: String
    package var created_at: Int64
    package var expires_at: Int64
}

/// ``AuthenticatorRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLAuthenticatorRepository: AuthenticatorRepository {

    package init() {}

    private struct Row: Decodable {
        var id: String
        var device_id: String
        var aaid: String
        var type: String
        var public_key: String
        var passcode_fallback: Int
        var invalidate_on_new_biometrics: Int
        var created_at: Int64

        var info: AuthenticatorInfo {
            AuthenticatorInfo(
                id: id, deviceId: device_id, aaid: aaid, type: AuthenticatorType(rawValue: type) ?? .pin, publicKey: public_key,
                allowDevicePasscodeAsFallback: passcode_fallback != 0, invalidateOnNewOsBiometrics: invalidate_on_new_biometrics != 0,
                createdAt: created_at
            )
        }
    }

    private static let columns = "a.id, a.device_id, a.aaid, a.type, a.public_key, a.passcode_fallback, a.invalidate_on_new_biometrics, a.created_at"

    package func insert(_ info: AuthenticatorInfo, userId: String, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO authenticators (id, device_id, user_id, aaid, type, public_key, passcode_fallback, invalidate_on_new_biometrics, status, created_at)
            VALUES (\(bind: info.id), \(bind: info.deviceId), \(bind: userId), \(bind: info.aaid), \(bind: info.type.rawValue),
                    \(bind: info.publicKey), \(bind: info.allowDevicePasscodeAsFallback ? 1 : 0), \(bind: info.invalidateOnNewOsBiometrics ? 1 : 0),
                    'active', \(bind: info.createdAt))
            """
        ).run()
    }

    package func list(deviceId: String, in sql: any SQLDatabase) async throws -> [AuthenticatorInfo] {
        try await sql.raw(
            "SELECT \(unsafeRaw: Self.columns) FROM authenticators a WHERE a.device_id = \(bind: deviceId) AND a.status = 'active' ORDER BY a.created_at, a.id"
        ).all(decoding: Row.self).map(\.info)
    }

    package func list(userId: String, deviceIds: [String], in sql: any SQLDatabase) async throws -> [AuthenticatorInfo] {
        guard !deviceIds.isEmpty else { return [] }
        return try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns) FROM authenticators a
            WHERE a.user_id = \(bind: userId) AND a.status = 'active' AND a.device_id IN (\(binds: deviceIds)) ORDER BY a.created_at, a.id
            """
        ).all(decoding: Row.self).map(\.info)
    }

    package func delete(id: String, deviceId: String?, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        if let deviceId {
            return try await sql.raw(
                """
                UPDATE authenticators SET status = 'deleted', deleted_at = \(bind: now)
                WHERE id = \(bind: id) AND device_id = \(bind: deviceId) AND status = 'active' RETURNING id
                """
            ).first() != nil
        }
        return try await sql.raw(
            "UPDATE authenticators SET status = 'deleted', deleted_at = \(bind: now) WHERE id = \(bind: id) AND status = 'active' RETURNING id"
        ).first() != nil
    }

    package func insertChallenge(_ challenge: AuthenticatorChallenge, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO authenticator_challenges (id, authenticator_id, device_id, challenge, created_at, expires_at)
            VALUES (\(bind: challenge.id), \(bind: challenge.authenticator_id), \(bind: challenge.device_id), \(bind: challenge.challenge),
                    \(bind: challenge.created_at), \(bind: challenge.expires_at))
            """
        ).run()
    }

    package func consumeChallenge(id: String, deviceId: String, now: Int64, in sql: any SQLDatabase) async throws -> AuthenticatorChallenge? {
        try await sql.raw(
            """
            UPDATE authenticator_challenges SET used_at = \(bind: now)
            WHERE id = \(bind: id) AND device_id = \(bind: deviceId) AND used_at IS NULL AND expires_at > \(bind: now)
            RETURNING id, authenticator_id, device_id, challenge, created_at, expires_at
            """
        ).first(decoding: AuthenticatorChallenge.self)
    }

    package func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM authenticator_challenges WHERE expires_at < \(bind: before)").run()
    }
}
