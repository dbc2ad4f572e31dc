import SQLKit
import TesseraStorage

/// The device reads of the relying party's hot paths (result-token introspection, TOTP verification), each a
/// lookup by key. On PostgreSQL the lookups of concurrent requests go together in one statement
/// (``StatementBatcher``: a statement per request cost more than the row it read); on SQLite, whose reads already
/// share the writer's group commit, each is a statement of its own.
package struct DeviceLookups: Sendable {
    private let database: any Database
    private let devices: any DeviceRepository
    private let active: StatementBatcher<String, Bool>?
    private let totp: StatementBatcher<ClientUserKey, [DeviceTOTPSecret]>?

    /// Lookups in `devices` over `database`; batched when `database` is PostgreSQL.
    package init(database: any Database, devices: any DeviceRepository) {
        self.database = database
        self.devices = devices
        guard database.kind == .postgres else {
            (active, totp) = (nil, nil)
            return
        }
        active = StatementBatcher { deviceIds in
            let found = try await database.read { try await devices.activeAmong(deviceIds: deviceIds, in: $0) }
            return deviceIds.map(found.contains)
        }
        totp = StatementBatcher { users in
            let found = try await database.read { try await devices.activeTOTPSecrets(of: users, in: $0) }
            return users.map { found[$0] ?? [] }
        }
    }

    /// Whether lookups go together in one statement (PostgreSQL): a caller then makes them outside any lease of its
    /// own, as a lease held while waiting for a batch would keep a connection the batch may need.
    package var batches: Bool { active != nil }

    /// Whether the device is active (known and not revoked).
    package func isActive(deviceId: String) async throws -> Bool {
        if let active { return try await active.answer(deviceId) }
        let devices = self.devices
        return try await database.read { try await devices.isActive(deviceId: deviceId, in: $0) }
    }

    /// The active devices (with their sealed TOTP secrets) of the client's user `userKey`.
    package func activeTOTPSecrets(clientId: String, userKey: String) async throws -> [DeviceTOTPSecret] {
        if let totp { return try await totp.answer(ClientUserKey(clientId: clientId, userKey: userKey)) }
        let devices = self.devices
        return try await database.read { try await devices.activeTOTPSecrets(clientId: clientId, userKey: userKey, in: $0) }
    }
}
