import Crypto
import Foundation
import SQLKit
import TesseraCore

/// The device key a session registers after the registration flow or a password log-in (the
/// seed's `PUT …/certificates`): the session counts as logged in only once it is bound to a device.
/// Uses the same device issuer as sign-up and re-registration, and the client's devices-per-user
/// limit (the oldest devices beyond it are revoked in the same transaction).
package struct SessionDeviceService: Sendable {
    package let database: any Database
    package let issuer: DeviceIssuer
    package let audit: any AuditLog
    package let sessions: SessionService
    package let policies: ClientPolicyRepository
    package let clock: WallClock
    package var nodeSync: (any DeviceChangeFeed)?

    package init(
        database: any Database,
        issuer: DeviceIssuer,
        audit: any AuditLog,
        sessions: SessionService,
        policies: ClientPolicyRepository,
        clock: WallClock,
        nodeSync: (any DeviceChangeFeed)? = nil
    ) {
        self.database = database
        self.issuer = issuer
        self.audit = audit
        self.sessions = sessions
        self.policies = policies
        self.clock = clock
        self.nodeSync = nodeSync
    }

    /// Registers the session's device key; `sessionToken`: the session's token as sent, whose derived challenge an
    /// attestation may use (``AppAttestDeviceBinding/enrolmentChallenge(secret:deviceKey:)``: the session binds one
    /// device key, so the challenge serves once).
    package func register(
        _ request: SessionDeviceRequest, session: SessionService.Authenticated, sessionToken: String? = nil, client: Client
    ) async throws -> SessionDeviceResponse {
        guard session.deviceId == nil else { throw AppError.conflict("This session has a device key already") }
        _ = try P256.Signing.PublicKey(x963Base64: request.userVerificationPublicKey, field: "userVerificationPublicKey")
        try AppError.checkLengths([("appVersion", request.appVersion, 32), ("os", request.os, 32), ("pushToken", request.pushToken, 4096)])
        let keep = try await policies.policy(clientId: client.id).devicesPerUser - 1
        let device = try await issuer.admit(DeviceIssuer.NewDevice(
            devicePublicKey: request.devicePublicKey, userVerificationPublicKey: request.userVerificationPublicKey, os: request.os,
            appVersion: request.appVersion, pushToken: request.pushToken, appAttest: request.appAttest, enrolmentSecret: sessionToken
        ), clientId: client.id)
        let now = clock.now(), issuer = self.issuer, repository = sessions.repository, audit = self.audit
        let (deviceId, secret, revoked) = try await database.transaction { sql in
            let revoked = try await issuer.devices.revokeActive(userId: session.userId, keepNewest: keep, now: now, in: sql)
            let inserted = try await issuer.insertDevice(device, userId: session.userId, clientId: client.id, now: now, in: sql)
            let deviceId = inserted.deviceId
            guard try await repository.bindDevice(tokenHash: session.tokenHash, deviceId: deviceId, in: sql) else {
                throw AppError.conflict("This session has a device key already")
            }
            let actor = AuditEvent.device(deviceId)
            try await audit.append(
                revoked.map {
                    AuditEvent("device.revoked", actor: actor, clientId: client.id, userId: session.userId, deviceId: $0, details: ["reason": "replaced"])
                } + [AuditEvent("device.enrolled", actor: actor, clientId: client.id, userId: session.userId, deviceId: deviceId, sessionId: session.id)]
                    + inserted.attestationEvents,
                in: sql
            )
            return (deviceId, inserted.totpSecret, revoked)
        }
        await nodeSync?.flush(deviceIds: [deviceId] + revoked)
        return SessionDeviceResponse(deviceId: deviceId, totpSecret: secret, revokedDeviceIds: revoked)
    }
}
