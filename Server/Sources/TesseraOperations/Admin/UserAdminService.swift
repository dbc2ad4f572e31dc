import Foundation
import TesseraCore

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
    package let database: any Database
    package let users: any UserRepository
    package let devices: any DeviceRepository
    package let audit: any AuditLog
    package let clients: ClientService
    package let nodeSync: any DeviceChangeFeed
    package let clock: WallClock
    /// The devices' App Attest state, shown with each device.
    package let appAttest: AppAttestService


    package init(

        database: any Database,

        users: any UserRepository,

        devices: any DeviceRepository,

        audit: any AuditLog,

        clients: ClientService,

        nodeSync: any DeviceChangeFeed,

        clock: WallClock,

        appAttest: AppAttestService

    ) {

        self.database = database

        self.users = users

        self.devices = devices

        self.audit = audit

        self.clients = clients

        self.nodeSync = nodeSync

        self.clock = clock

        self.appAttest = appAttest

    }

    /// The internal id of a client's user (404 when there is none).
    package func userId(clientKey: String, userKey: String) async throws -> String {
        let client = try await clients.client(clientKey: clientKey)
        let users = self.users
        guard let user = try await database.read({ try await users.find(clientId: client.id, userKey: userKey, in: $0) }) else {
            throw AppError.notFound("No such user")
        }
        return user.id
    }

    /// A client's users with their devices, `limit` at a time after the user key `after`.
    public func list(clientKey: String, limit: Int = 50, after: String? = nil) async throws -> AdminUserPage {
        guard let client = try await clients.list().first(where: { $0.clientKey == clientKey }) else {
            throw AppError.noSuchClient()
        }
        let users = self.users, devices = self.devices
        let records = try await database.withSQL { try await users.page(clientId: client.id, after: after ?? "", limit: limit + 1, in: $0) }
        var page: [AdminUser] = []
        for user in records.prefix(limit) {
            let listed = try await database.withSQL { try await devices.list(userId: user.id, in: $0) }
            page.append(AdminUser(
                userKey: user.userKey, name: user.name, email: user.email, phone: user.phone, localAuthType: user.localAuthType,
                createdAt: user.createdAt, devices: listed
            ))
        }
        // The App Attest state of the page's devices, in one read.
        let states = try await appAttest.states(deviceIds: page.flatMap { $0.devices.map(\.deviceId) })
        for userIndex in page.indices {
            for deviceIndex in page[userIndex].devices.indices {
                let deviceId = page[userIndex].devices[deviceIndex].deviceId
                page[userIndex].devices[deviceIndex].appAttest = states[deviceId] ?? .notAttested
            }
        }
        return AdminUserPage(users: page, nextCursor: records.count > limit ? page.last?.userKey : nil)
    }

    /// Revokes a device: its signed calls get 3008, its sessions and result tokens introspect as
    /// inactive, and every verifier node is told (signed receipts).
    public func revokeDevice(_ deviceId: String) async throws {
        let now = clock.now()
        let devices = self.devices, audit = self.audit
        let revoked = try await database.transaction { sql -> Bool in
            guard let owner = try await devices.owner(deviceId: deviceId, in: sql) else {
                throw AppError.noSuchDevice()
            }
            guard try await devices.revoke(deviceId: deviceId, now: now, in: sql) else { return false }
            // With its client and user, so the client's webhooks hear of it.
            try await audit.append(
                AuditEvent(
                    "device.revoked", actor: "admin", clientId: owner.clientId, userId: owner.userId, deviceId: deviceId, details: ["reason": "admin"]
                ),
                in: sql
            )
            return true
        }
        guard revoked else { throw AppError.conflict("The device is already revoked") }
        await nodeSync.flush(deviceIds: [deviceId])
    }
}
