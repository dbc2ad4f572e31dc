import Crypto
import Foundation
import SQLKit
import TesseraCore
import TesseraStorage

/// A device as stored; the TOTP secret is sealed with the server's TOTP key.
package struct DeviceRecord: Sendable {
    package var id: String
    package var userId: String
    package var clientId: String
    package var deviceKey: String
    package var userVerificationKey: String
    package var os: String
    package var appVersion: String
    package var pushToken: String
    package var totpSecretSealed: String
    package var createdAt: Int64

    package init(
        id: String,
        userId: String,
        clientId: String,
        deviceKey: String,
        userVerificationKey: String,
        os: String,
        appVersion: String,
        pushToken: String,
        totpSecretSealed: String,
        createdAt: Int64
    ) {
        self.id = id
        self.userId = userId
        self.clientId = clientId
        self.deviceKey = deviceKey
        self.userVerificationKey = userVerificationKey
        self.os = os
        self.appVersion = appVersion
        self.pushToken = pushToken
        self.totpSecretSealed = totpSecretSealed
        self.createdAt = createdAt
    }
}

/// A user's device with its TOTP secret (sealed), for TOTP verification.
package struct DeviceTOTPSecret: Sendable {
    package var userId: String
    package var deviceId: String
    package var totpSecretSealed: String
}

/// A client's user by its key (the relying party's name for it).
package struct ClientUserKey: Hashable, Sendable {
    package var clientId: String
    package var userKey: String

    package init(clientId: String, userKey: String) {
        self.clientId = clientId
        self.userKey = userKey
    }
}

/// Storage of devices, the one owner of the `devices` table; also the key lookup (``DeviceSigningKeys``) every
/// signed device endpoint uses. Methods that write take the caller's transaction handle, so a
/// change that spans domains (a device with its session, a revocation with its sessions and the
/// node queue) stays one transaction.
package protocol DeviceRepository: Sendable {
    /// The device's key with its user and client (``DeviceAuthTarget``), for the signature check
    /// (``DeviceSigningKeys``); revoked devices are returned, marked revoked.
    func signingKey(for keyId: String) async throws -> DeviceSigningKey<DeviceAuthTarget?>?
    /// Inserts the device and queues it for the verifier nodes.
    func insert(_ device: DeviceRecord, in sql: any SQLDatabase) async throws
    /// Revokes the user's active devices beyond the newest `keep` (with their sessions, queuing the
    /// revocation for the verifier nodes), returning their IDs.
    @discardableResult
    func revokeActive(userId: String, keepNewest keep: Int, now: Int64, in sql: any SQLDatabase) async throws -> [String]
    @discardableResult
    func revoke(deviceId id: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Whether a device with this id exists (active or revoked).
    func exists(deviceId: String, in sql: any SQLDatabase) async throws -> Bool
    /// The user and client of a device (active or revoked); nil when there is no such device.
    func owner(deviceId: String, in sql: any SQLDatabase) async throws -> (userId: String, clientId: String)?
    /// Whether the device exists and is active.
    func isActive(deviceId: String, in sql: any SQLDatabase) async throws -> Bool
    /// The user of an active device; nil when the device is revoked or unknown.
    func activeUserId(deviceId: String, in sql: any SQLDatabase) async throws -> String?
    /// The IDs of the user's active devices.
    func activeIds(userId: String, in sql: any SQLDatabase) async throws -> [String]
    /// Keeps device information given at an earlier registration: sets the name only when it has
    /// none and the push token only when it is empty.
    func keepInformation(deviceId: String, name: String?, pushToken: String?, in sql: any SQLDatabase) async throws
    /// The user's devices, oldest first, as the admin sees them.
    func list(userId: String, in sql: any SQLDatabase) async throws -> [AdminDevice]
    /// The user key of a device's user.
    func userKey(ofDevice deviceId: String, in sql: any SQLDatabase) async throws -> String?
    /// The active devices (with their sealed TOTP secrets) of the client's user `userKey`.
    func activeTOTPSecrets(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> [DeviceTOTPSecret]
    /// Which of these devices are active, in one statement (the lookups of many requests at once:
    /// ``DeviceLookups``).
    func activeAmong(deviceIds: [String], in sql: any SQLDatabase) async throws -> Set<String>
    /// The active devices (with their sealed TOTP secrets) of each of these users, in one statement; a user
    /// unknown or without an active device is left out.
    func activeTOTPSecrets(of users: [ClientUserKey], in sql: any SQLDatabase) async throws -> [ClientUserKey: [DeviceTOTPSecret]]
    /// What verifier nodes are told about these devices (keys and whether active), by device ID, in
    /// one query; unknown devices are left out.
    func nodeRecords(deviceIds: [String]) async throws -> [String: NodeDeviceRecord]
}

/// ``DeviceRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLDeviceRepository: DeviceRepository {
    package let database: any Database
    /// A revoked device's sessions are revoked in the same transaction, through their owner.
    package let sessions: any SessionRepository
    /// A new or revoked device is queued for the verifier nodes in the same transaction.
    package let syncQueue: any DeviceSyncQueue
    /// On PostgreSQL, the key lookups of concurrent signed requests read in one statement (nil on SQLite).
    let authTargets: StatementBatcher<String, DeviceAuthTarget?>?

    package init(database: any Database, sessions: any SessionRepository, syncQueue: any DeviceSyncQueue) {
        self.database = database
        self.sessions = sessions
        self.syncQueue = syncQueue
        authTargets = database.kind == .postgres ? StatementBatcher { deviceIds in
            let found = try await database.read { try await Self.authTargets(deviceIds: deviceIds, in: $0) }
            return deviceIds.map { found[$0] }
        } : nil
    }

    package func insert(_ device: DeviceRecord, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO devices (id, user_id, client_id, device_key, uv_key, os, app_version, push_token, totp_secret_sealed, status, created_at)
            VALUES (\(bind: device.id), \(bind: device.userId), \(bind: device.clientId), \(bind: device.deviceKey),
                    \(bind: device.userVerificationKey), \(bind: device.os), \(bind: device.appVersion), \(bind: device.pushToken),
                    \(bind: device.totpSecretSealed), 'active', \(bind: device.createdAt))
            """
        ).run()
        try await syncQueue.enqueue(deviceId: device.id, now: device.createdAt, in: sql)
    }

    @discardableResult
    package func revokeActive(userId: String, keepNewest keep: Int, now: Int64, in sql: any SQLDatabase) async throws -> [String] {
        let active = try await sql.raw(
            "SELECT id FROM devices WHERE user_id = \(bind: userId) AND status = 'active' ORDER BY created_at DESC, id DESC"
        ).all().map { try $0.decode(column: "id", as: String.self) }
        let victims = Array(active.dropFirst(keep))
        for id in victims { try await revoke(deviceId: id, now: now, in: sql) }
        return victims
    }

    @discardableResult
    package func revoke(deviceId id: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        guard try await sql.raw(
            "UPDATE devices SET status = 'revoked', revoked_at = \(bind: now) WHERE id = \(bind: id) AND status = 'active' RETURNING id"
        ).first() != nil else { return false }
        try await sessions.revokeAll(deviceId: id, now: now, in: sql)
        try await syncQueue.enqueue(deviceId: id, now: now, in: sql)
        return true
    }

    /// Reads the device with its user and client in one query, so that the signed request's handler
    /// finds its ``DeviceAuthTarget`` in ``DeviceSigningKey/details`` instead of reading it again.
    package func signingKey(for keyId: String) async throws -> DeviceSigningKey<DeviceAuthTarget?>? {
        guard let target = try await authTarget(deviceId: keyId) else { return nil }
        return DeviceSigningKey(deviceId: keyId, publicKey: target.deviceKey, revoked: !target.active, details: target)
    }

    package func exists(deviceId: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM devices WHERE id = \(bind: deviceId)").first() != nil
    }

    package func owner(deviceId: String, in sql: any SQLDatabase) async throws -> (userId: String, clientId: String)? {
        guard let row = try await sql.raw("SELECT user_id, client_id FROM devices WHERE id = \(bind: deviceId)").first() else { return nil }
        return (try row.decode(column: "user_id", as: String.self), try row.decode(column: "client_id", as: String.self))
    }

    package func isActive(deviceId: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS ok FROM devices WHERE id = \(bind: deviceId) AND status = 'active'").first() != nil
    }

    package func activeUserId(deviceId: String, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT user_id FROM devices WHERE id = \(bind: deviceId) AND status = 'active'").first()?
            .decode(column: "user_id", as: String.self)
    }

    package func activeIds(userId: String, in sql: any SQLDatabase) async throws -> [String] {
        try await sql.raw("SELECT id FROM devices WHERE user_id = \(bind: userId) AND status = 'active'").all()
            .map { try $0.decode(column: "id", as: String.self) }
    }

    package func keepInformation(deviceId: String, name: String?, pushToken: String?, in sql: any SQLDatabase) async throws {
        if let name {
            try await sql.raw("UPDATE devices SET name = \(bind: name) WHERE id = \(bind: deviceId) AND name IS NULL").run()
        }
        if let pushToken {
            try await sql.raw("UPDATE devices SET push_token = \(bind: pushToken) WHERE id = \(bind: deviceId) AND push_token = ''").run()
        }
    }

    private struct ListedRow: Decodable {
        var id: String
        var name: String?
        var status: String
        var os: String
        var app_version: String
        var created_at: Int64
        var revoked_at: Int64?
        var push_token: String
        var push_platform: String
        var push_changed_at: Int64?
        var push_cleared_at: Int64?
    }

    package func list(userId: String, in sql: any SQLDatabase) async throws -> [AdminDevice] {
        try await sql.raw(
            """
            SELECT id, name, status, os, app_version, created_at, revoked_at, push_token, push_platform, push_changed_at, push_cleared_at
            FROM devices WHERE user_id = \(bind: userId) ORDER BY created_at
            """
        ).all(decoding: ListedRow.self).map {
            AdminDevice(
                deviceId: $0.id, name: $0.name, status: $0.status, os: $0.os, appVersion: $0.app_version, createdAt: $0.created_at,
                revokedAt: $0.revoked_at, push: !$0.push_token.isEmpty ? "registered" : ($0.push_cleared_at != nil ? "cleared" : "none"),
                pushProvider: $0.push_platform.isEmpty ? nil : $0.push_platform, pushChangedAt: $0.push_changed_at
            )
        }
    }

    // Named joins (one round trip on a hot path; the only reads of `users` outside Users/).

    package func userKey(ofDevice deviceId: String, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw(
            "SELECT users.user_key FROM devices JOIN users ON users.id = devices.user_id WHERE devices.id = \(bind: deviceId)"
        ).first()?.decode(column: "user_key", as: String.self)
    }

    package func activeTOTPSecrets(clientId: String, userKey: String, in sql: any SQLDatabase) async throws -> [DeviceTOTPSecret] {
        try await sql.statement(
            """
            SELECT d.user_id, d.id AS device_id, d.totp_secret_sealed FROM devices d
            WHERE d.status = 'active' AND d.user_id = (SELECT u.id FROM users u WHERE u.client_id = ? AND u.user_key = ?)
            """,
            clientId, userKey
        ).all().map {
            DeviceTOTPSecret(
                userId: try $0.decode(column: "user_id", as: String.self), deviceId: try $0.decode(column: "device_id", as: String.self),
                totpSecretSealed: try $0.decode(column: "totp_secret_sealed", as: String.self)
            )
        }
    }
}
