import Foundation
import SQLKit
import Synchronization
import TesseraServer

/// A ``SessionRepository`` in memory, for tests of the services above it (``SessionService``,
/// ``PasswordLoginService``, ``SessionDeviceService``) without a database. It keeps the observable
/// behaviour of ``SQLSessionRepository``, which `SessionRepositoryConformanceTests` checks case by
/// case against both engines:
///
/// - `insert` stores the session with `last_used_at = now` and no revocation; like the table's
///   constraints it throws ``ConstraintViolation`` for a token hash or an ID used before, an
///   unregistered user or an unregistered device.
/// - `find` answers revoked and expired sessions too (the service judges them), with the user's
///   client and whether the session's device is revoked.
/// - `touch` moves `last_used_at` to `now` only when it is more than a minute older (never backwards).
/// - `list` answers the user's sessions, newest first, ties by ID (in code-point order: the SQL's
///   `ORDER BY id` on PostgreSQL follows the database's collation, which agrees for ASCII IDs).
/// - `revoke`, `revokeAll` and `bindDevice` look only at revocation, never at expiry (the service
///   checks that); a revocation keeps its first time.
/// - `purge` deletes what expired or was revoked strictly before the cutoff.
/// - `introspect` answers only a session that is not revoked, expires strictly after `now`, was used
///   strictly after `usedSince`, has a device that is active and belongs to a user of `clientId`.
///
/// The SQL implementation reads two facts from other domains' tables, `users` (a user's client and
/// user key) and `devices` (whether a device is active). The double cannot, so a test tells it:
/// ``register(userId:clientId:userKey:)``, ``register(deviceId:)`` and ``revokeDevice(_:)``.
/// Revoking a device does not revoke its sessions: as in production, whoever revokes the device
/// does that through ``revokeAll(deviceId:now:in:)`` (`SQLDeviceRepository.revoke`).
///
/// The `sql` handle every method takes is ignored: nothing is rolled back when the caller's
/// transaction fails, and each call is atomic on its own (one lock).
package final class InMemorySessionRepository: SessionRepository, Sendable {
    /// What a table constraint would have refused (the SQL implementation throws the engine's error).
    package struct ConstraintViolation: Error, CustomStringConvertible {
        package var description: String
    }

    private struct User {
        var clientId: String
        var userKey: String
    }

    private struct State {
        /// In insertion order.
        var sessions: [SessionRecord] = []
        var users: [String: User] = [:]
        /// Device ID to whether it is revoked.
        var devicesRevoked: [String: Bool] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    // MARK: What the SQL reads from other domains

    /// Tells the double that a user exists (a `users` row): its client, and the user key introspection
    /// answers (the user ID unless given).
    package func register(userId: String, clientId: String, userKey: String? = nil) {
        state.withLock { $0.users[userId] = User(clientId: clientId, userKey: userKey ?? userId) }
    }

    /// Tells the double that an active device exists (a `devices` row).
    package func register(deviceId: String) {
        state.withLock { $0.devicesRevoked[deviceId] = false }
    }

    /// Tells the double that a device is revoked (registering it if needed). Its sessions stay as they
    /// are: call ``revokeAll(deviceId:now:in:)`` for them, as `SQLDeviceRepository.revoke` does.
    package func revokeDevice(_ deviceId: String) {
        state.withLock { $0.devicesRevoked[deviceId] = true }
    }

    // MARK: SessionRepository

    package func insert(
        id: String, tokenHash: String, userId: String, deviceId: String?, now: Int64, expiresAt: Int64, in sql: any SQLDatabase
    ) async throws {
        let record = try Self.record(
            id: id, tokenHash: tokenHash, userId: userId, deviceId: deviceId, createdAt: now, expiresAt: expiresAt
        )
        try state.withLock { state in
            guard state.users[userId] != nil else { throw ConstraintViolation(description: "sessions.user_id: no user \(userId)") }
            if let deviceId, state.devicesRevoked[deviceId] == nil {
                throw ConstraintViolation(description: "sessions.device_id: no device \(deviceId)")
            }
            guard !state.sessions.contains(where: { $0.token_hash == tokenHash }) else {
                throw ConstraintViolation(description: "sessions.token_hash: duplicate")
            }
            guard !state.sessions.contains(where: { $0.id == id }) else { throw ConstraintViolation(description: "sessions.id: duplicate \(id)") }
            state.sessions.append(record)
        }
    }

    package func find(tokenHash: String, in sql: any SQLDatabase) async throws -> (SessionRecord, clientId: String, deviceRevoked: Bool)? {
        state.withLock { state in
            guard let record = state.sessions.first(where: { $0.token_hash == tokenHash }),
                  let user = state.users[record.user_id]
            else { return nil }
            let deviceRevoked = record.device_id.flatMap { state.devicesRevoked[$0] } ?? false
            return (record, user.clientId, deviceRevoked)
        }
    }

    package func touch(tokenHash: String, now: Int64, in sql: any SQLDatabase) async throws {
        state.withLock { state in
            for index in state.sessions.indices
            where state.sessions[index].token_hash == tokenHash && state.sessions[index].last_used_at < now - 60_000 {
                state.sessions[index].last_used_at = now
            }
        }
    }

    package func list(userId: String, in sql: any SQLDatabase) async throws -> [SessionRecord] {
        state.withLock { state in
            state.sessions.filter { $0.user_id == userId }.sorted {
                $0.created_at != $1.created_at ? $0.created_at > $1.created_at : $0.id.unicodeScalars.lexicographicallyPrecedes($1.id.unicodeScalars)
            }
        }
    }

    package func revoke(id: String, userId: String?, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        state.withLock { state in
            guard let index = state.sessions.firstIndex(where: {
                $0.id == id && $0.revoked_at == nil && (userId == nil || $0.user_id == userId)
            }) else { return false }
            state.sessions[index].revoked_at = now
            return true
        }
    }

    package func revokeAll(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws {
        state.withLock { state in
            for index in state.sessions.indices where state.sessions[index].device_id == deviceId && state.sessions[index].revoked_at == nil {
                state.sessions[index].revoked_at = now
            }
        }
    }

    package func purge(endedBefore cutoff: Int64, in sql: any SQLDatabase) async throws {
        state.withLock { state in
            state.sessions.removeAll { $0.expires_at < cutoff || ($0.revoked_at.map { $0 < cutoff } ?? false) }
        }
    }

    package func bindDevice(tokenHash: String, deviceId: String, in sql: any SQLDatabase) async throws -> Bool {
        try state.withLock { state in
            guard let index = state.sessions.firstIndex(where: {
                $0.token_hash == tokenHash && $0.device_id == nil && $0.revoked_at == nil
            }) else { return false }
            guard state.devicesRevoked[deviceId] != nil else {
                throw ConstraintViolation(description: "sessions.device_id: no device \(deviceId)")
            }
            state.sessions[index].device_id = deviceId
            return true
        }
    }

    package func introspect(
        tokenHash: String, clientId: String, now: Int64, usedSince: Int64, in sql: any SQLDatabase
    ) async throws -> IntrospectedSession? {
        let found: (SessionRecord, userKey: String)? = state.withLock { state in
            guard let record = state.sessions.first(where: { $0.token_hash == tokenHash }),
                  record.revoked_at == nil, record.expires_at > now, record.last_used_at > usedSince,
                  let deviceId = record.device_id, state.devicesRevoked[deviceId] == false,
                  let user = state.users[record.user_id], user.clientId == clientId
            else { return nil }
            return (record, user.userKey)
        }
        guard let (record, userKey) = found else { return nil }
        return try Self.decode(
            IntrospectedSession.self,
            from: Introspected(created_at: record.created_at, expires_at: record.expires_at, device_id: record.device_id, user_key: userKey)
        )
    }

    // MARK: Building the records

    // `SessionRecord` and `IntrospectedSession` have no `package` initialiser, only `Decodable` (the SQL
    // implementation decodes them from rows), so the double decodes them from their columns too.

    private struct Columns: Encodable {
        var id: String
        var token_hash: String
        var user_id: String
        var device_id: String?
        var created_at: Int64
        var last_used_at: Int64
        var expires_at: Int64
        var revoked_at: Int64?
    }

    private struct Introspected: Encodable {
        var created_at: Int64
        var expires_at: Int64
        var device_id: String?
        var user_key: String
    }

    private static func record(
        id: String, tokenHash: String, userId: String, deviceId: String?, createdAt: Int64, expiresAt: Int64
    ) throws -> SessionRecord {
        try decode(
            SessionRecord.self,
            from: Columns(
                id: id, token_hash: tokenHash, user_id: userId, device_id: deviceId, created_at: createdAt, last_used_at: createdAt,
                expires_at: expiresAt, revoked_at: nil
            )
        )
    }

    private static func decode<T: Decodable>(_ type: T.Type, from columns: some Encodable) throws -> T {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(columns))
    }
}
