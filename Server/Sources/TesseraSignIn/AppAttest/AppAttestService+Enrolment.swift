import Crypto
import Foundation
import TesseraCore
import TesseraWebAuthn

/// App Attest at enrolment (issue 41): a challenge issued to the client before the device exists, bound to the device
/// key it will enrol (``AppAttestDeviceBinding``), and the verification of the attestation sent with the enrolment.
/// The verified key is stored for the new device, with its attestation object and challenge for the verifier nodes,
/// inside the enrolment's transaction.
extension AppAttestService {
    /// A single-use challenge for an attestation sent with the enrolment of `devicePublicKey` (P-256, X9.63 base64;
    /// 1005 when it is not one) by a device of `clientId`: 16 bytes from ``random`` and 16 of the key's SHA-256,
    /// base64url, usable for ``challengeLifetime``. At most ``enrolmentLimiter``'s limit per address `ip` (7423).
    package func enrolmentChallenge(clientId: String, devicePublicKey: String, ip: String? = nil) async throws -> AppAttestChallenge {
        let key = try Self.deviceKeyBytes(devicePublicKey)
        let bytes = AppAttestDeviceBinding.challenge(random: random.bytes(16), deviceKey: key)
        let now = clock.now(), expires = now + challengeLifetime.millis, hash = Self.hash(bytes), enrolment = self.enrolment
        if let ip, let retryAfter = enrolmentLimiter.admit(ip, now: now) { throw AppError.appAttestRateLimited(retryAfter: retryAfter) }
        try await database.withSQL { sql in
            try await enrolment.insertChallenge(hash: hash, clientId: clientId, createdAt: now, expiresAt: expires, in: sql)
        }
        return AppAttestChallenge(challenge: Data(bytes).base64URLEncodedString(), expiresIn: Int(challengeLifetime.components.seconds))
    }

    /// Verifies the attestation sent with the enrolment of `devicePublicKey` by a device of `clientId` for `app`: its
    /// challenge is the one derived from the secret the enrolment uses up, `enrolmentSecret`
    /// (``AppAttestDeviceBinding/enrolmentChallenge(secret:deviceKey:)``; single use as the secret is: the enrolment's
    /// transaction consumes the dispose token or binds the session's one device key), or an issued enrolment
    /// challenge, consumed here (7401, 7402, 7403); it must be bound to the key (7409); then the attestation is
    /// verified (7410–7419). A refusal is audited as
    /// `device.app_attest.failed` (step `enrolment`, no device yet). Returns what the enrolment's transaction records
    /// for the new device.
    package func admitEnrolment(
        _ request: AppAttestAttestationRequest, clientId: String, devicePublicKey: String, enrolmentSecret: String?, app: AppAttestApp
    ) async throws -> AdmittedDeviceAttestation {
        do {
            let keyId = try Self.bytes(request.keyId, field: "appAttest.keyId")
            let object = try Self.bytes(request.attestationObject, field: "appAttest.attestationObject")
            let key = try Self.deviceKeyBytes(devicePublicKey)
            let derived = enrolmentSecret.map { AppAttestDeviceBinding.enrolmentChallenge(secret: $0, deviceKey: key) }
            let challenge = if let derived, Data(base64URLEncoded: request.challenge).map(Array.init) == derived {
                derived
            } else {
                try await consumeEnrolment(request.challenge, clientId: clientId)
            }
            guard AppAttestDeviceBinding.binds(challenge, deviceKey: key) else { throw AppError.appAttestChallengeNotBound() }
            let credential: AppAttestCredential
            do throws(AppAttestError) {
                credential = try await AppAttestVerifier(app: app, trustedRoots: trustedRoots, anchorCache: anchors)
                    .verifyAttestation(object, keyId: keyId, challenge: challenge, time: time())
            } catch {
                throw error.problem
            }
            return admitted(credential, clientId: clientId, attestationObject: Self.nodeEvidence(object), challenge: challenge)
        } catch let problem as AppError where problem.code != .fieldInvalid {
            try await auditEnrolmentFailure(problem, clientId: clientId)
            throw problem
        }
    }

    /// Appends `device.app_attest.failed` (step `enrolment`, `problem`'s code) for `clientId`, in a transaction of its own.
    package func auditEnrolmentFailure(_ problem: AppError, clientId: String) async throws {
        let audit = self.audit
        try await database.transaction { sql in
            try await audit.append([AuditEvent(
                AppAttestAuditEvent.failed, actor: "app-attest:enrolment", clientId: clientId,
                details: ["step": AppAttestAuditEvent.Step.enrolment.rawValue, "code": String(problem.code.rawValue)]
            )], in: sql)
        }
    }

    /// What the enrolment's transaction records: the key (counter 0) and its evidence; the audit entry goes with the
    /// enrolment's.
    private func admitted(
        _ credential: AppAttestCredential, clientId: String, attestationObject: [UInt8], challenge: [UInt8]
    ) -> AdmittedDeviceAttestation {
        let repository = self.repository, now = clock.now()
        return AdmittedDeviceAttestation { deviceId, userId, sql in
            let record = AppAttestKeyRecord(
                deviceId: deviceId, keyId: credential.keyId, publicKey: credential.publicKey, counter: credential.counter,
                environment: credential.environment, receipt: credential.receipt, attestedAt: now
            )
            do {
                try await repository.storeKey(record, attestationObject: attestationObject, challenge: challenge, in: sql)
            } catch let error where UniqueViolation.detail(of: error) != nil {
                throw AppError.conflict("This App Attest key is attested for another device")
            }
            return [Self.attestedEvent(credential, deviceId: deviceId, userId: userId, clientId: clientId)]
        }
    }

    /// Consumes the enrolment challenge text `challenge` of `clientId` and returns its bytes (7401, 7402, 7403).
    private func consumeEnrolment(_ challenge: String, clientId: String) async throws -> [UInt8] {
        let enrolment = self.enrolment
        return try await consume(challenge) { hash, now, sql in try await enrolment.consumeChallenge(hash: hash, clientId: clientId, now: now, in: sql) }
    }

    /// The X9.63 bytes of a P-256 device key in base64 (1005 naming `devicePublicKey` when it is not one).
    static func deviceKeyBytes(_ devicePublicKey: String) throws -> [UInt8] {
        let key = try P256.Signing.PublicKey(x963Base64: devicePublicKey, field: "devicePublicKey")
        return Array(key.x963Representation)
    }

    /// The bytes of the base64 member `field` (1005 when it is empty or not base64).
    static func bytes(_ text: String, field: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: text), !data.isEmpty else { throw AppError.invalidField(field, "\(field) must be base64 (RFC 4648 §4)") }
        return Array(data)
    }
}
