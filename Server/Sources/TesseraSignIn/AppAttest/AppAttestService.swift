import Crypto
import Foundation
import SQLKit
import TesseraCore
import TesseraWebAuthn
import X509

/// App Attest per device (issue 41): single-use challenges from the injected CSPRNG on the injected clock, the
/// attestation of the device's key (``AppAttestVerifier``, its roots injected, its time the clock's) and the
/// assertions of later calls, whose counter is stored per device with a compare-and-set so that two concurrent
/// assertions carrying the same counter never both pass and no update is lost.
///
/// The challenge is 32 random bytes, base64url without padding; only its SHA-256 is stored. The app hashes the
/// challenge's 32 bytes (not its text) into the attestation's `clientDataHash`; an assertion's client data is a
/// JSON object whose `challenge` member is the challenge's text (``AppAttestClientData``).
package struct AppAttestService: Sendable {
    /// Where challenges and keys are stored.
    package let database: any Database
    /// The owner of `app_attest_challenges` and `app_attest_keys`.
    package let repository: any AppAttestRepository
    /// The challenges of enrolments and the evidence kept for the verifier nodes.
    package let enrolment: any AppAttestEnrolmentRepository
    /// Whether a device is active (challenges are issued to active devices only), and whose it is (for the audit).
    package let devices: any DeviceRepository
    /// Where verified and refused attestations and refused assertions are recorded (``AppAttestAuditEvent``).
    package let audit: any AuditLog
    /// The roots attestations must chain to: Apple's App Attestation Root CA unless a test gives its own.
    package let trustedRoots: [Certificate]
    /// The CSPRNG challenges are drawn from.
    package let random: RandomSource
    /// The time of challenges' expiry and of the attestation certificates' validity.
    package let clock: WallClock
    /// How long a challenge can be used (default 5 minutes).
    package let challengeLifetime: Duration
    /// Queues the device for the verifier nodes in the transaction that stores its attested key (they are sent the
    /// attestation to verify themselves); nil: they are not told.
    package var nodeSync: (@Sendable (_ deviceId: String, _ now: Int64, _ sql: any SQLDatabase) async throws -> Void)?
    /// Counts enrolment challenges per IP address and hour (all clients together, in memory, per instance): the route
    /// needs no device, so it is limited where it is asked from.
    package let enrolmentLimiter: AppAttestChallengeLimiter
    /// The intermediates chains were validated through (one signature check per attestation instead of two).
    package let anchors = AppAttestAnchorCache()

    /// How long a challenge can be used unless the service is told otherwise: 5 minutes.
    package static let defaultChallengeLifetime: Duration = .seconds(300)

    /// A service; `trustedRoots` defaults to ``AppAttestRoot``.
    package init(
        database: any Database,
        repository: any AppAttestRepository = SQLAppAttestRepository(),
        enrolment: any AppAttestEnrolmentRepository = SQLAppAttestEnrolmentRepository(),
        devices: any DeviceRepository,
        audit: any AuditLog,
        trustedRoots: [Certificate]? = nil,
        random: RandomSource,
        clock: WallClock,
        challengeLifetime: Duration = Self.defaultChallengeLifetime,
        enrolmentChallengesPerHour: Int = 300
    ) throws {
        enrolmentLimiter = AppAttestChallengeLimiter(perHour: enrolmentChallengesPerHour)
        self.database = database
        self.repository = repository
        self.enrolment = enrolment
        self.devices = devices
        self.audit = audit
        self.trustedRoots = try trustedRoots ?? [AppAttestRoot.certificate()]
        self.random = random
        self.clock = clock
        self.challengeLifetime = challengeLifetime
    }

    /// A new single-use challenge for the active device `deviceId` (3007 for an unknown device, 3008 for a
    /// revoked one) whose device key is `deviceKey` (X9.63 bytes): 16 bytes from ``random`` and 16 of the key's SHA-256
    /// (``AppAttestDeviceBinding``, so that the verifier nodes can tell an attestation made for it), base64url, usable
    /// for ``challengeLifetime`` on ``clock``.
    package func challenge(for deviceId: String, deviceKey: [UInt8]) async throws -> AppAttestChallenge {
        let bytes = AppAttestDeviceBinding.challenge(random: random.bytes(16), deviceKey: deviceKey)
        let now = clock.now()
        let record = AppAttestChallengeRecord(
            hash: Self.hash(bytes), deviceId: deviceId, createdAt: now, expiresAt: now + challengeLifetime.millis
        )
        let repository = self.repository, devices = self.devices
        try await database.transaction { sql in
            guard try await devices.isActive(deviceId: deviceId, in: sql) else {
                if try await devices.exists(deviceId: deviceId, in: sql) { throw AppError.deviceRevoked() }
                throw AppError.deviceUnknown()
            }
            try await repository.insertChallenge(record, in: sql)
        }
        return AppAttestChallenge(
            challenge: Data(bytes).base64URLEncodedString(), expiresIn: Int(challengeLifetime.components.seconds)
        )
    }

    /// What is kept for the verifier nodes of a verified attestation object: the object without Apple's receipt
    /// (``AppAttestVerifier/evidence(_:)``), which they do not need and which is most of its bytes; the receipt is
    /// stored once, with the key.
    static func nodeEvidence(_ attestationObject: [UInt8]) -> [UInt8] {
        (try? AppAttestVerifier.evidence(attestationObject)) ?? attestationObject
    }

    /// Attests the device's key: consumes `challenge` (once: 7401 unknown, 7402 used, 7403 expired), verifies the
    /// attestation object for `app` at the clock's time (7410–7419, one code per failed step) and stores the key
    /// with counter 0, replacing one the device attested before. Audited: `device.app_attest.attested` with the key,
    /// or `device.app_attest.failed` with the problem's code (``AppAttestAuditEvent``).
    ///
    /// - Parameters:
    ///   - keyId: The key ID the app sent, decoded (32 bytes).
    ///   - attestationObject: The CBOR bytes `attestKey` returned.
    ///   - challenge: The challenge as ``challenge(for:deviceKey:)`` issued it (base64url text).
    ///   - app: The client's app: team ID, bundle ID, environment.
    @discardableResult
    package func attest(
        deviceId: String, keyId: [UInt8], attestationObject: [UInt8], challenge: String, app: AppAttestApp
    ) async throws -> AppAttestCredential {
        try await audited(.attestation, deviceId: deviceId) {
            let challengeBytes = try await consume(challenge, deviceId: deviceId)
            let verifier = AppAttestVerifier(app: app, trustedRoots: trustedRoots, anchorCache: anchors)
            let credential: AppAttestCredential
            do throws(AppAttestError) {
                credential = try await verifier.verifyAttestation(attestationObject, keyId: keyId, challenge: challengeBytes, time: time())
            } catch {
                throw error.problem
            }
            let record = AppAttestKeyRecord(
                deviceId: deviceId, keyId: credential.keyId, publicKey: credential.publicKey, counter: credential.counter,
                environment: credential.environment, receipt: credential.receipt, attestedAt: clock.now()
            )
            let repository = self.repository, nodeSync = self.nodeSync, now = record.attestedAt
            let evidence = Self.nodeEvidence(attestationObject)
            do {
                try await database.transaction { sql in
                    try await repository.storeKey(record, attestationObject: evidence, challenge: challengeBytes, in: sql)
                    try await appendAttested(credential, deviceId: deviceId, in: sql)
                    try await nodeSync?(deviceId, now, sql)
                }
            } catch let error where UniqueViolation.detail(of: error) != nil {
                throw AppError.conflict("This App Attest key is attested for another device")
            }
            return credential
        }
    }

    /// Verifies an assertion of the device's attested key (7404 when it has none): consumes `challenge` (7401,
    /// 7402, 7403), checks that `clientData` carries it (7405), verifies the signature, `rpIdHash` and the
    /// counter against the stored one (7410, 7416, 7420, 7421), then stores the new counter with a compare-and-set:
    /// when another assertion stored an equal or greater counter meanwhile, this one is refused as replayed (7421).
    /// Returns the counter stored. A refusal is audited as `device.app_attest.failed` with its code; a verified
    /// assertion is not audited (too frequent).
    ///
    /// - Parameters:
    ///   - assertion: The CBOR bytes `generateAssertion` returned.
    ///   - clientData: The request the app signed: a JSON object whose `challenge` is `challenge`.
    ///   - challenge: A challenge ``challenge(for:deviceKey:)`` issued to the device (base64url text).
    ///   - app: The client's app (its App ID's hash is the assertion's `rpIdHash`).
    @discardableResult
    package func verifyAssertion(
        deviceId: String, assertion: [UInt8], clientData: [UInt8], challenge: String, app: AppAttestApp
    ) async throws -> UInt32 {
        try await audited(.assertion, deviceId: deviceId) {
            let repository = self.repository
            guard try await database.read({ try await repository.key(deviceId: deviceId, in: $0) }) != nil else {
                throw AppError.appAttestDeviceNotAttested()
            }
            _ = try await consume(challenge, deviceId: deviceId)
            guard AppAttestClientData.challenge(in: clientData) == challenge else { throw AppError.appAttestClientDataMismatch() }
            // Read after the challenge is consumed: the counter is the newest committed one.
            guard let key = try await database.read({ try await repository.key(deviceId: deviceId, in: $0) }) else {
                throw AppError.appAttestDeviceNotAttested()
            }
            let counter: UInt32
            do throws(AppAttestError) {
                counter = try AppAttestVerifier(app: app, trustedRoots: trustedRoots)
                    .verifyAssertion(assertion, clientData: clientData, publicKey: key.publicKey, storedCounter: key.counter)
            } catch {
                throw error.problem
            }
            let stored = try await database.transaction { sql in
                try await repository.advanceCounter(deviceId: deviceId, to: counter, in: sql)
            }
            guard stored else {
                throw AppAttestError.counterNotGrown(stored: key.counter, received: counter).problem
            }
            return counter
        }
    }

    /// Deletes challenges that expired more than a lifetime ago.
    package func purgeChallenges() async throws {
        let repository = self.repository, before = clock.now() - challengeLifetime.millis
        let enrolment = self.enrolment
        try await database.withSQL { sql in
            try await repository.purgeChallenges(before: before, in: sql)
            try await enrolment.purgeChallenges(before: before, in: sql)
        }
    }

    /// Consumes the challenge text `challenge` of `deviceId` and returns its bytes; a problem (7401, 7402, 7403)
    /// when it cannot be used.
    private func consume(_ challenge: String, deviceId: String) async throws -> [UInt8] {
        let repository = self.repository
        return try await consume(challenge) { hash, now, sql in try await repository.consumeChallenge(hash: hash, deviceId: deviceId, now: now, in: sql) }
    }

    /// Consumes the challenge text `challenge` with `use` (by its hash, at the clock's time, in a transaction of its own)
    /// and returns its bytes; a problem (7401 unknown or not 32 bytes, 7402 used, 7403 expired) when it cannot be used.
    func consume(
        _ challenge: String, with use: @escaping @Sendable (_ hash: String, _ now: Int64, _ sql: any SQLDatabase) async throws -> AppAttestChallengeUse
    ) async throws -> [UInt8] {
        guard let data = Data(base64URLEncoded: challenge), data.count == AppAttestDeviceBinding.challengeLength else {
            throw AppError.appAttestChallengeUnknown()
        }
        let bytes = Array(data), hash = Self.hash(bytes), now = clock.now()
        switch try await database.transaction({ sql in try await use(hash, now, sql) }) {
        case .consumed: return bytes
        case .unknown: throw AppError.appAttestChallengeUnknown()
        case .used: throw AppError.appAttestChallengeUsed()
        case .expired: throw AppError.appAttestChallengeExpired()
        }
    }

    /// The clock's time, for the certificates' validity.
    func time() -> Date { Date(timeIntervalSince1970: Double(clock.now()) / 1000) }

    /// SHA-256 of the challenge's bytes, lowercase hex: the stored identifier.
    static func hash(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hexString
    }
}

/// A challenge issued for App Attest.
package struct AppAttestChallenge: Sendable, Equatable, Codable {
    /// 32 random bytes, base64url without padding.
    package var challenge: String
    /// Seconds it can be used for.
    package var expiresIn: Int
}

/// The client data of an App Attest assertion: a JSON object whose `challenge` member is the challenge's text;
/// its other members are the request's (the app decides them).
package enum AppAttestClientData {
    /// The `challenge` member of `clientData`, nil when it is not a JSON object with a string `challenge`.
    package static func challenge(in clientData: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(clientData)) as? [String: Any] else { return nil }
        return object["challenge"] as? String
    }
}
