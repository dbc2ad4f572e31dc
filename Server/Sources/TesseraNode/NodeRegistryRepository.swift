import SQLKit
import TesseraCore

/// The node's own registry of device public keys, the one owner of `node_devices` and `node_app_attest` (what the
/// node concluded about each device's App Attest evidence, see `NodeRegistryRepository+AppAttest.swift`). Each method runs
/// on the caller's handle (``NodeService`` stores a batch of records in one transaction).
protocol NodeRegistryRepository: Sendable {
    /// How many devices the registry knows.
    func count(in sql: any SQLDatabase) async throws -> Int
    /// The keys stored for a device; nil when it is unknown.
    func keys(deviceId: String, in sql: any SQLDatabase) async throws -> (deviceKey: String, userVerificationKey: String)?
    /// A device's key, status (`active` or `revoked`) and App Attest state (whether its client requires an attestation
    /// the node verified, whether the node holds one), in one read: the login's hot path; nil when it is unknown.
    func deviceKey(deviceId: String, in sql: any SQLDatabase) async throws -> NodeDeviceKey?
    /// A device's status; nil when it is unknown.
    func status(deviceId: String, in sql: any SQLDatabase) async throws -> String?
    /// Stores the device as active unless it is known already (a revoked device stays revoked).
    func enrol(_ record: NodeDeviceRecord, now: Int64, in sql: any SQLDatabase) async throws
    /// Stores the device as revoked, known or not: a revocation is permanent.
    func revoke(_ record: NodeDeviceRecord, now: Int64, in sql: any SQLDatabase) async throws
    /// A device's App Attest state: whether its client requires a verified attestation, and the node's last outcome
    /// (nil: none); nil when the node never heard of either.
    func appAttest(deviceId: String, in sql: any SQLDatabase) async throws -> (required: Bool, outcome: NodeAppAttestOutcome?)?
    /// Replaces a device's App Attest state.
    func saveAppAttest(deviceId: String, required: Bool, outcome: NodeAppAttestOutcome?, in sql: any SQLDatabase) async throws
}

/// ``NodeRegistryRepository`` over SQLKit.
struct SQLNodeRegistryRepository: NodeRegistryRepository {
    func count(in sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM node_devices").first()?.decode(column: "n", as: Int.self) ?? 0
    }

    func keys(deviceId: String, in sql: any SQLDatabase) async throws -> (deviceKey: String, userVerificationKey: String)? {
        guard let row = try await sql.raw("SELECT device_key, uv_key FROM node_devices WHERE device_id = \(bind: deviceId)").first() else {
            return nil
        }
        return (try row.decode(column: "device_key", as: String.self), try row.decode(column: "uv_key", as: String.self))
    }

    func deviceKey(deviceId: String, in sql: any SQLDatabase) async throws -> NodeDeviceKey? {
        guard let row = try await sql.raw(
            """
            SELECT d.device_key, d.status, a.required AS app_attest_required, a.status AS app_attest_status
            FROM node_devices d LEFT JOIN node_app_attest a ON a.device_id = d.device_id
            WHERE d.device_id = \(bind: deviceId)
            """
        ).first() else {
            return nil
        }
        return NodeDeviceKey(
            deviceKey: try row.decode(column: "device_key", as: String.self), status: try row.decode(column: "status", as: String.self),
            appAttestRequired: (try row.decode(column: "app_attest_required", as: Int?.self) ?? 0) != 0,
            appAttested: try row.decode(column: "app_attest_status", as: String?.self) == NodeAppAttestOutcome.verified
        )
    }

    func status(deviceId: String, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw("SELECT status FROM node_devices WHERE device_id = \(bind: deviceId)").first()?.decode(column: "status", as: String.self)
    }

    func enrol(_ record: NodeDeviceRecord, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_devices (device_id, client_id, user_id, device_key, uv_key, status, updated_at)
            VALUES (\(bind: record.deviceId), \(bind: record.clientId), \(bind: record.userId), \(bind: record.deviceKey),
                    \(bind: record.userVerificationKey), 'active', \(bind: now))
            ON CONFLICT (device_id) DO NOTHING
            """
        ).run()
    }

    func revoke(_ record: NodeDeviceRecord, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_devices (device_id, client_id, user_id, device_key, uv_key, status, updated_at)
            VALUES (\(bind: record.deviceId), \(bind: record.clientId), \(bind: record.userId), \(bind: record.deviceKey),
                    \(bind: record.userVerificationKey), 'revoked', \(bind: now))
            ON CONFLICT (device_id) DO UPDATE SET status = 'revoked', updated_at = \(bind: now)
            """
        ).run()
    }
}
