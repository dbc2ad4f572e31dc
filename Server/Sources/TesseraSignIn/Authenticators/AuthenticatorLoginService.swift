import Crypto
import Foundation
import SQLKit
import TesseraCore

/// Authentication with a registered authenticator (the operation the Nevis seed implies): the device
/// asks for a single-use challenge for one of its active authenticators, the authenticator's key signs
/// it on the device after its user verifier succeeded, and the server checks the signature against
/// that authenticator's registered public key and issues a result token (the kind the node-quorum
/// login gives) whose `amr` names the authenticator's method (``AuthenticatorType/amrMethod``) and
/// `swk`: the server proves possession of a key it cannot attest is hardware-bound.
package struct AuthenticatorLoginService: Sendable {
    package let database: any Database
    package let repository: any AuthenticatorRepository
    package let devices: any DeviceRepository
    package let lookup: any DeviceAuthLookup
    package let tokens: ResultTokens
    /// Records each log-in (`login.completed`, `login.failed` for a bad signature) with the authenticator's id.
    package let audit: any AuditLog
    package let random: RandomSource
    package let clock: WallClock
    /// How long a challenge can be signed.
    package var challengeLifetime: Duration = .seconds(120)

    package init(
        database: any Database,
        repository: any AuthenticatorRepository,
        devices: any DeviceRepository,
        lookup: any DeviceAuthLookup,
        tokens: ResultTokens,
        audit: any AuditLog,
        random: RandomSource,
        clock: WallClock,
        challengeLifetime: Duration = .seconds(120)
    ) {
        self.database = database
        self.repository = repository
        self.devices = devices
        self.lookup = lookup
        self.tokens = tokens
        self.audit = audit
        self.random = random
        self.clock = clock
        self.challengeLifetime = challengeLifetime
    }

    /// A challenge for the device's active authenticator of `request.aaid`.
    package func challenge(
        _ request: AuthenticatorChallengeRequest, deviceId: String, client: Client, signed: DeviceAuthTarget? = nil
    ) async throws -> AuthenticatorChallengeResponse {
        let type = try AuthenticatorService.type(aaid: request.aaid)
        _ = try AuthenticatorService.requiredUsername(request.username)
        try AppError.checkLengths([("username", request.username as String?, 200)])
        _ = try await lookup.requireActive(deviceId, client: client, signed: signed)
        let now = clock.now()
        let challenge = AuthenticatorChallenge(
            id: random.identifier(prefix: "ach_"), authenticator_id: "", device_id: deviceId, challenge: random.token(),
            created_at: now, expires_at: now + challengeLifetime.millis
        )
        let repository = self.repository, devices = self.devices
        let stored = try await database.transaction { sql in
            try await AuthenticatorService.requireDeviceUser(request.username, deviceId: deviceId, devices: devices, in: sql)
            guard let authenticator = try await repository.list(deviceId: deviceId, in: sql).first(where: { $0.type == type }) else {
                throw AppError.authenticatorUnknown(detail: "This device has no active \(type.rawValue) authenticator")
            }
            var stored = challenge
            stored.authenticator_id = authenticator.id
            try await repository.insertChallenge(stored, in: sql)
            return stored
        }
        return AuthenticatorChallengeResponse(
            challengeId: stored.id, authenticatorId: stored.authenticator_id, challenge: stored.challenge,
            expiresIn: Int(challengeLifetime.components.seconds)
        )
    }

    /// Checks the authenticator's signature over the challenge (used once) and issues the result token.
    package func authenticate(
        _ request: AuthenticatorAuthenticationRequest, deviceId: String, client: Client, signed: DeviceAuthTarget? = nil
    ) async throws -> AuthResultResponse {
        let device = try await lookup.requireActive(deviceId, client: client, signed: signed)
        let now = clock.now()
        let repository = self.repository
        // The challenge is used up whatever the signature: a wrong one cannot be retried against it.
        let found = try await database.transaction { sql -> (AuthenticatorChallenge, AuthenticatorInfo)? in
            guard let challenge = try await repository.consumeChallenge(id: request.challengeId, deviceId: deviceId, now: now, in: sql),
                  let authenticator = try await repository.list(deviceId: deviceId, in: sql).first(where: { $0.id == challenge.authenticator_id })
            else { return nil }
            return (challenge, authenticator)
        }
        guard let found else {
            throw AppError.authenticatorChallengeInvalid(detail: "Ask for a new challenge (POST /v1/devices/authenticator-challenges)")
        }
        let (challenge, authenticator) = found
        let statement = AuthenticatorAuthenticationRequest.statementBytes(
            challengeId: challenge.id, deviceId: deviceId, authenticatorId: authenticator.id, challenge: challenge.challenge
        )
        guard let key = P256.Signing.PublicKey(x963Base64: authenticator.publicKey), let der = Data(base64Encoded: request.signature),
              let signature = try? P256.Signing.ECDSASignature(derRepresentation: der), key.isValidSignature(signature, for: statement)
        else {
            let refusal = AppError.authenticatorSignatureInvalid(field: "signature")
            try await record("login.failed", deviceId: deviceId, authenticator: authenticator, extra: ["code": String(refusal.code.rawValue)])
            throw refusal
        }
        let token = try await tokens.issue(
            userKey: device.userKey, clientKey: device.clientKey, clientId: device.clientKey, deviceId: deviceId, channelId: challenge.id,
            amr: [authenticator.type.amrMethod, "swk"], nodes: []
        )
        try await record("login.completed", deviceId: deviceId, authenticator: authenticator)
        return AuthResultResponse(token: token, expiresIn: Int(tokens.lifetime.components.seconds))
    }

    /// Appends a log-in event (the challenge was consumed in its own transaction before the signature was checked).
    private func record(_ type: String, deviceId: String, authenticator: AuthenticatorInfo, extra: [String: String] = [:]) async throws {
        let audit = self.audit
        let event = AuditEvent(
            type, actor: AuditEvent.device(deviceId), deviceId: deviceId,
            details: ["authenticator": authenticator.id, "method": authenticator.type.amrMethod].merging(extra) { $1 }
        )
        try await database.transaction { sql in try await audit.append(event, in: sql) }
    }

}
