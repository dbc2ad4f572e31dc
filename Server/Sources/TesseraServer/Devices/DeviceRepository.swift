import Crypto
import Foundation
import SQLKit

/// A device as stored; the TOTP secret is sealed with the server's TOTP key.
struct DeviceRecord: Sendable {
    var id: String
    var userId: String
    var clientId: String
    var deviceKey: String
    var userVerificationKey: String
    var os: String
    var appVersion: String
    var pushToken: String
    var totpSecretSealed: String
    var createdAt: Int64
}

/// Storage of devices; also the ``DeviceKeyLookup`` every signed device endpoint uses.
struct SQLDeviceRepository: DeviceKeyLookup {
    let database: any Database

    func insert(_ device: DeviceRecord, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO devices (id, user_id, client_id, device_key, uv_key, os, app_version, push_token, totp_secret_sealed, status, created_at)
            VALUES (\(bind: device.id), \(bind: device.userId), \(bind: device.clientId), \(bind: device.deviceKey),
                    \(bind: device.userVerificationKey), \(bind: device.os), \(bind: device.appVersion), \(bind: device.pushToken),
                    \(bind: device.totpSecretSealed), 'active', \(bind: device.createdAt))
            """
        ).run()
        try await NodeSyncService.enqueue(deviceId: device.id, now: device.createdAt, in: sql)
    }

    /// Revokes the user's active devices beyond the newest `keep` (queuing the revocation for the
    /// verifier nodes), returning their IDs.
    @discardableResult
    func revokeActive(userId: String, keepNewest keep: Int, now: Int64, in sql: any SQLDatabase) async throws -> [String] {
        let active = try await sql.raw(
            "SELECT id FROM devices WHERE user_id = \(bind: userId) AND status = 'active' ORDER BY created_at DESC, id DESC"
        ).all().map { try $0.decode(column: "id", as: String.self) }
        let victims = Array(active.dropFirst(keep))
        for id in victims { try await revoke(deviceId: id, now: now, in: sql) }
        return victims
    }

    /// Revokes one active device with its sessions and queues the revocation for the verifier nodes;
    /// false if it was not active.
    @discardableResult
    func revoke(deviceId id: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        guard try await sql.raw(
            "UPDATE devices SET status = 'revoked', revoked_at = \(bind: now) WHERE id = \(bind: id) AND status = 'active' RETURNING id"
        ).first() != nil else { return false }
        try await sql.raw("UPDATE sessions SET revoked_at = \(bind: now) WHERE device_id = \(bind: id) AND revoked_at IS NULL").run()
        try await NodeSyncService.enqueue(deviceId: id, now: now, in: sql)
        return true
    }

    func signingKey(for keyId: String) async throws -> DeviceSigningKey? {
        let row = try await database.read { sql in
            try await sql.raw("SELECT device_key, status FROM devices WHERE id = \(bind: keyId)").first()
        }
        guard let row, let key = P256.Signing.PublicKey(x963Base64: try row.decode(column: "device_key", as: String.self)) else { return nil }
        return DeviceSigningKey(deviceId: keyId, publicKey: key, revoked: try row.decode(column: "status", as: String.self) != "active")
    }
}
