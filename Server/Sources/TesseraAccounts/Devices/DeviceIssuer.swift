import Crypto
import Foundation
import SQLKit
import TesseraCore

/// Creates what a newly registered device receives, for sign-up and re-registration alike: the
/// device row (TOTP secret sealed with the server's TOTP key) and a session (token kept as a keyed hash).
package struct DeviceIssuer: Sendable {
    package let devices: any DeviceRepository
    package let sessions: SessionService
    package let totpKey: SymmetricKey
    package let random: RandomSource
    /// Checks the app attestation an enrolment sends (App Attest); nil: none is checked (and one sent is refused).
    package var attestation: (any DeviceAttestationCheck)?

    package init(
        devices: any DeviceRepository, sessions: SessionService, totpKey: SymmetricKey, random: RandomSource,
        attestation: (any DeviceAttestationCheck)? = nil
    ) {
        self.devices = devices
        self.sessions = sessions
        self.totpKey = totpKey
        self.random = random
        self.attestation = attestation
    }

    package struct Issued: Sendable {
        package var deviceId: String
        package var sessionId: String
        package var totpSecret: String
        package var sessionToken: String
        package var sessionExpiresIn: Int
        /// The audit events of the device's admitted attestation (``DeviceIssuer/Inserted/attestationEvents``).
        package var attestationEvents: [AuditEvent] = []
    }

    /// A device inserted by ``DeviceIssuer/insertDevice(_:userId:clientId:now:in:)``.
    package struct Inserted: Sendable {
        package var deviceId: String
        /// The TOTP secret in base32.
        package var totpSecret: String
        /// The audit events of the recorded attestation, for the enrolment's append (after `device.enrolled`).
        package var attestationEvents: [AuditEvent]
    }

    package struct NewDevice: Sendable {
        package var devicePublicKey: String
        package var userVerificationPublicKey: String
        package var os: String
        package var appVersion: String
        package var pushToken: String
        /// The app attestation sent with the enrolment (App Attest), checked by ``DeviceIssuer/admit(_:clientId:)``.
        package var appAttest: AppAttestAttestationRequest?
        /// The secret the enrolment uses up (a sign-up's or re-registration's dispose token, the session token of a
        /// session registering its device key): the attestation may use the challenge derived from it
        /// (``AppAttestDeviceBinding/enrolmentChallenge(secret:deviceKey:)``).
        package var enrolmentSecret: String?
        /// The attestation ``DeviceIssuer/admit(_:clientId:)`` verified, recorded when the device is inserted.
        package var admitted: AdmittedDeviceAttestation?

        package init(
            devicePublicKey: String, userVerificationPublicKey: String, os: String, appVersion: String, pushToken: String,
            appAttest: AppAttestAttestationRequest? = nil, enrolmentSecret: String? = nil
        ) {
            self.enrolmentSecret = enrolmentSecret
            self.devicePublicKey = devicePublicKey
            self.userVerificationPublicKey = userVerificationPublicKey
            self.os = os
            self.appVersion = appVersion
            self.pushToken = pushToken
            self.appAttest = appAttest
        }
    }

    /// Checks the device's app attestation under its client's policy, before the enrolment's transaction (which
    /// records it when the device is inserted): 7407 when the client requires one and none was sent; 7406 when one
    /// was sent and the policy is off or nothing checks attestations; the verification's code when it fails.
    package func admit(_ device: NewDevice, clientId: String) async throws -> NewDevice {
        guard let attestation else {
            if device.appAttest != nil { throw AppError.appAttestOff() }
            return device
        }
        var device = device
        device.admitted = try await attestation.admit(
            device.appAttest, clientId: clientId, devicePublicKey: device.devicePublicKey, enrolmentSecret: device.enrolmentSecret
        )
        return device
    }

    /// Inserts the device and its session inside the caller's transaction.
    package func issue(_ device: NewDevice, userId: String, clientId: String, now: Int64, in sql: any SQLDatabase) async throws -> Issued {
        let inserted = try await insertDevice(device, userId: userId, clientId: clientId, now: now, in: sql)
        let session = try await sessions.create(userId: userId, deviceId: inserted.deviceId, now: now, in: sql)
        return Issued(
            deviceId: inserted.deviceId, sessionId: session.id, totpSecret: inserted.totpSecret, sessionToken: session.token,
            sessionExpiresIn: session.expiresIn, attestationEvents: inserted.attestationEvents
        )
    }

    /// The audit events of an issue: the device enrolled (and its attestation) and its session created (by the new
    /// device), after the devices the same change revoked.
    package static func auditEvents(_ issued: Issued, revoked: [String] = [], userId: String, clientId: String) -> [AuditEvent] {
        let actor = AuditEvent.device(issued.deviceId)
        return revoked.map { AuditEvent("device.revoked", actor: actor, clientId: clientId, userId: userId, deviceId: $0, details: ["reason": "replaced"]) }
            + [
                AuditEvent("device.enrolled", actor: actor, clientId: clientId, userId: userId, deviceId: issued.deviceId),
            ] + issued.attestationEvents + [
                AuditEvent("session.created", actor: actor, clientId: clientId, userId: userId, deviceId: issued.deviceId, sessionId: issued.sessionId),
            ]
    }

    /// Inserts the device alone (its TOTP secret sealed, its admitted attestation recorded) inside the caller's
    /// transaction.
    package func insertDevice(_ device: NewDevice, userId: String, clientId: String, now: Int64, in sql: any SQLDatabase) async throws -> Inserted {
        let deviceId = random.identifier(prefix: "dev_")
        let secret = random.bytes(20)
        let sealed = try Sealing.seal(Data(secret), using: totpKey, authenticating: Data(deviceId.utf8)).base64EncodedString()
        try await devices.insert(DeviceRecord(
            id: deviceId, userId: userId, clientId: clientId, deviceKey: device.devicePublicKey,
            userVerificationKey: device.userVerificationPublicKey, os: device.os, appVersion: device.appVersion,
            pushToken: device.pushToken, totpSecretSealed: sealed, createdAt: now
        ), in: sql)
        let events = try await device.admitted?.record(deviceId, userId, sql) ?? []
        return Inserted(deviceId: deviceId, totpSecret: Base32.encode(secret), attestationEvents: events)
    }
}

