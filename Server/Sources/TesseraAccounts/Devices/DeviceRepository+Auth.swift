import Crypto
import SQLKit
import TesseraStorage

/// A device with what an authentication needs of its user and client (one indexed join on the hot path).
/// The devices' key lookup reads it with the key, and the request context carries it typed
/// (``TesseraContext/signedDevice``).
public struct DeviceAuthTarget: Sendable {
    package var deviceId: String
    package var userId: String
    package var clientId: String
    package var clientKey: String
    package var userKey: String
    package var localAuthType: String
    package var deviceKey: P256.Signing.PublicKey
    package var userVerificationKey: P256.Signing.PublicKey
    package var active: Bool
    /// The client's App Attest policy (`reported`, `required`; nil when off or never set) and whether the server
    /// verified this device's App Attest key (issue 41).
    package var appAttestPolicy: String? = nil
    package var appAttested = false
    /// Whether the client asks for an App Attest assertion with each sign-in approval.
    package var appAttestAssertSignIn = false
    /// The client's App ID (`<teamID>.<bundleID>`) when its policy is on: the `rpIdHash` of the device's assertions.
    package var appAttestAppID: String? = nil
    /// The device's attested App Attest key (uncompressed X9.62, base64url as stored) and its stored counter.
    package var appAttestKey: (publicKey: String, counter: Int64)? = nil

    /// What a result token says of App Attest: nil when the policy is off, else `attested` or `none`.
    package var appAttestClaim: String? {
        guard let appAttestPolicy, appAttestPolicy != "off" else { return nil }
        return appAttested ? "attested" : "none"
    }
}

/// The named device queries the authentication flows use; the devices domain owns the SQL.
package protocol DeviceAuthLookup: Sendable {
    /// The device with its user's and client's keys; nil when unknown or its keys do not parse.
    func authTarget(deviceId: String) async throws -> DeviceAuthTarget?
    /// The ID of the client's user `userKey`, when that user has an active device.
    func userWithActiveDevice(clientId: String, userKey: String) async throws -> String?
}

extension DeviceAuthLookup {
    /// The device `deviceId` of `client`, active: 3007 when unknown (or another client's), 3008 when revoked.
    /// `signed` is the device as the request's signature check read it (see ``TesseraContext/signedDevice``):
    /// when it is this device, it is used instead of reading the device again.
    package func requireActive(_ deviceId: String, client: Client, signed: DeviceAuthTarget? = nil) async throws -> DeviceAuthTarget {
        let found = if let signed, signed.deviceId == deviceId { signed } else { try await authTarget(deviceId: deviceId) }
        guard let device = found, device.clientId == client.id else {
            throw AppError.deviceUnknown()
        }
        guard device.active else { throw AppError.deviceRevoked() }
        return device
    }
}

extension SQLDeviceRepository: DeviceAuthLookup {
    package func authTarget(deviceId: String) async throws -> DeviceAuthTarget? {
        if let authTargets { return try await authTargets.answer(deviceId) }
        let row = try await database.read { sql in try await sql.statement(Self.authTargetQuery + "d.id = ?", deviceId).first() }
        return try row.flatMap(Self.authTarget(row:))
    }

    /// The devices' targets, by device ID, in one statement (PostgreSQL: the key lookups of concurrent requests).
    static func authTargets(deviceIds: [String], in sql: any SQLDatabase) async throws -> [String: DeviceAuthTarget] {
        var found: [String: DeviceAuthTarget] = [:]
        for row in try await sql.statement(Self.authTargetQuery + "d.id = ANY(?)", Array(Set(deviceIds))).all() {
            if let target = try authTarget(row: row) { found[target.deviceId] = target }
        }
        return found
    }

    /// The lookup's statement up to its condition on `d.id`.
    private static let authTargetQuery = """
        SELECT d.id, d.user_id, d.client_id, d.device_key, d.uv_key, d.status, u.user_key, u.local_auth_type, c.client_key,
               s.policy AS app_attest_policy, s.assert_sign_in, s.team_id, s.bundle_id, k.public_key AS app_attest_key,
               k.counter AS app_attest_counter
        FROM devices d JOIN users u ON u.id = d.user_id JOIN clients c ON c.id = d.client_id
        LEFT JOIN app_attest_settings s ON s.client_id = d.client_id LEFT JOIN app_attest_keys k ON k.device_id = d.id
        WHERE\u{20}
        """

    /// A row of the lookup as a target; nil when its keys do not parse.
    private static func authTarget(row: any SQLRow) throws -> DeviceAuthTarget? {
        guard let deviceKey = P256KeyCache.shared.key(x963Base64: try row.decode(column: "device_key", as: String.self)),
              let uvKey = P256KeyCache.shared.key(x963Base64: try row.decode(column: "uv_key", as: String.self))
        else { return nil }
        let policy = try row.decode(column: "app_attest_policy", as: String?.self), on = policy.map { $0 != "off" } ?? false
        let appAttestKey = try row.decode(column: "app_attest_key", as: String?.self)
        let assertSignIn = try row.decode(column: "assert_sign_in", as: Int?.self) ?? 0
        var appID: String?
        if on, let team = try row.decode(column: "team_id", as: String?.self), let bundle = try row.decode(column: "bundle_id", as: String?.self) {
            appID = "\(team).\(bundle)"
        }
        return DeviceAuthTarget(
            deviceId: try row.decode(column: "id", as: String.self), userId: try row.decode(column: "user_id", as: String.self),
            clientId: try row.decode(column: "client_id", as: String.self), clientKey: try row.decode(column: "client_key", as: String.self),
            userKey: try row.decode(column: "user_key", as: String.self), localAuthType: try row.decode(column: "local_auth_type", as: String.self),
            deviceKey: deviceKey, userVerificationKey: uvKey, active: try row.decode(column: "status", as: String.self) == "active",
            appAttestPolicy: policy, appAttested: appAttestKey != nil,
            appAttestAssertSignIn: on && assertSignIn != 0, appAttestAppID: appID,
            appAttestKey: try appAttestKey.map { ($0, try row.decode(column: "app_attest_counter", as: Int64.self)) }
        )
    }

    package func userWithActiveDevice(clientId: String, userKey: String) async throws -> String? {
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT u.id FROM users u WHERE u.client_id = \(bind: clientId) AND u.user_key = \(bind: userKey)
                  AND EXISTS (SELECT 1 FROM devices d WHERE d.user_id = u.id AND d.status = 'active')
                """
            ).first()
        }
        return try row?.decode(column: "id", as: String.self)
    }
}
