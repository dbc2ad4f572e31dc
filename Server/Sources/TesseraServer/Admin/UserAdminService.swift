import Foundation
import SQLKit
import TesseraCore

/// A device as the admin sees it (no keys or secrets).
public struct AdminDevice: Codable, Sendable, Equatable {
    public var deviceId: String
    /// The name given with the first authenticator registration (`deviceInformation`), if any.
    public var name: String?
    public var status: String
    public var os: String
    public var appVersion: String
    public var createdAt: Int64
    public var revokedAt: Int64?
}

/// A user as the admin sees it.
public struct AdminUser: Codable, Sendable, Equatable {
    public var userKey: String
    public var name: String
    public var email: String
    public var phone: String
    public var localAuthType: String
    public var createdAt: Int64
    public var devices: [AdminDevice]
}

/// One page of a client's users, ordered by user key.
public struct AdminUserPage: Codable, Sendable, Equatable {
    public var users: [AdminUser]
    /// Pass as `after` for the next page; absent on the last page.
    public var nextCursor: String?
}

/// Admin listing of users and devices, and device revocation (SPEC capability 9).
public struct UserAdminService: Sendable {
    let database: any Database
    let clients: ClientService
    let nodeSync: NodeSyncService
    let clock: WallClock

    /// The internal id of a client's user (404 when there is none).
    func userId(clientKey: String, userKey: String) async throws -> String {
        let client = try await clients.client(clientKey: clientKey)
        guard let id = try await database.read({ sql in
            try await sql.raw("SELECT id FROM users WHERE client_id = \(bind: client.id) AND user_key = \(bind: userKey)").first()?
                .decode(column: "id", as: String.self)
        }) else { throw AppError(.notFound, .notFound, "No such user") }
        return id
    }

    /// A client's users with their devices, `limit` at a time after the user key `after`.
    public func list(clientKey: String, limit: Int = 50, after: String? = nil) async throws -> AdminUserPage {
        guard let client = try await clients.list().first(where: { $0.clientKey == clientKey }) else {
            throw AppError(.clientUnknown, .notFound, "No such client")
        }
        let users = try await database.withSQL { sql in
            try await sql.raw(
                """
                SELECT id, user_key, name, email, phone, local_auth_type, created_at FROM users
                WHERE client_id = \(bind: client.id) AND user_key > \(bind: after ?? "") ORDER BY user_key LIMIT \(bind: limit + 1)
                """
            ).all()
        }
        var page: [AdminUser] = []
        for row in users.prefix(limit) {
            let userId = try row.decode(column: "id", as: String.self)
            let devices = try await database.withSQL { sql in
                try await sql.raw(
                    "SELECT id, name, status, os, app_version, created_at, revoked_at FROM devices WHERE user_id = \(bind: userId) ORDER BY created_at"
                ).all()
            }
            page.append(AdminUser(
                userKey: try row.decode(column: "user_key", as: String.self), name: try row.decode(column: "name", as: String.self),
                email: try row.decode(column: "email", as: String.self), phone: try row.decode(column: "phone", as: String.self),
                localAuthType: try row.decode(column: "local_auth_type", as: String.self),
                createdAt: try row.decode(column: "created_at", as: Int64.self),
                devices: try devices.map {
                    AdminDevice(
                        deviceId: try $0.decode(column: "id", as: String.self), name: try $0.decode(column: "name", as: String?.self),
                        status: try $0.decode(column: "status", as: String.self),
                        os: try $0.decode(column: "os", as: String.self), appVersion: try $0.decode(column: "app_version", as: String.self),
                        createdAt: try $0.decode(column: "created_at", as: Int64.self), revokedAt: try $0.decode(column: "revoked_at", as: Int64?.self)
                    )
                }
            ))
        }
        return AdminUserPage(users: page, nextCursor: users.count > limit ? page.last?.userKey : nil)
    }

    /// Revokes a device: its signed calls get 3008, its sessions and result tokens introspect as
    /// inactive, and every verifier node is told (signed receipts).
    public func revokeDevice(_ deviceId: String) async throws {
        let now = clock.now()
        let devices = SQLDeviceRepository(database: database)
        let revoked = try await database.transaction { sql -> Bool in
            guard try await sql.raw("SELECT id FROM devices WHERE id = \(bind: deviceId)").first() != nil else {
                throw AppError(.deviceUnknown, .notFound, "No such device")
            }
            return try await devices.revoke(deviceId: deviceId, now: now, in: sql)
        }
        guard revoked else { throw AppError(.conflict, .conflict, "The device is already revoked") }
        await nodeSync.flush(deviceIds: [deviceId])
    }
}
