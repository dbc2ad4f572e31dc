import Crypto
import Foundation
import SQLKit
import TesseraCore

/// Creates what a newly registered device receives, for sign-up and re-registration alike: the
/// device row (TOTP secret sealed with the server's TOTP key) and a session (token kept as a keyed hash).
struct DeviceIssuer: Sendable {
    let devices: SQLDeviceRepository
    let sessions = SQLSessionRepository()
    let hasher: SecretHasher
    let totpKey: SymmetricKey
    let random: RandomSource
    var sessionLifetime: Duration = .seconds(30 * 86400)

    static let sessionDomain = "session-token"

    struct Issued: Sendable {
        var deviceId: String
        var totpSecret: String
        var sessionToken: String
        var sessionExpiresIn: Int
    }

    struct NewDevice: Sendable {
        var devicePublicKey: String
        var userVerificationPublicKey: String
        var os: String
        var appVersion: String
        var pushToken: String
    }

    /// Inserts the device and its session inside the caller's transaction.
    func issue(_ device: NewDevice, userId: String, clientId: String, now: Int64, in sql: any SQLDatabase) async throws -> Issued {
        let deviceId = random.identifier(prefix: "dev_")
        let secret = random.bytes(20)
        let sealed = try AES.GCM.seal(Data(secret), using: totpKey, authenticating: Data(deviceId.utf8)).combined!.base64EncodedString()
        let sessionToken = random.token(prefix: "tss_")
        try await devices.insert(DeviceRecord(
            id: deviceId, userId: userId, clientId: clientId, deviceKey: device.devicePublicKey,
            userVerificationKey: device.userVerificationPublicKey, os: device.os, appVersion: device.appVersion,
            pushToken: device.pushToken, totpSecretSealed: sealed, createdAt: now
        ), in: sql)
        try await sessions.insert(
            tokenHash: hasher.hash(sessionToken, domain: Self.sessionDomain), userId: userId, deviceId: deviceId, now: now,
            expiresAt: now + sessionLifetime.millis, in: sql
        )
        return Issued(
            deviceId: deviceId, totpSecret: Base32.encode(secret), sessionToken: sessionToken,
            sessionExpiresIn: Int(sessionLifetime.components.seconds)
        )
    }
}

