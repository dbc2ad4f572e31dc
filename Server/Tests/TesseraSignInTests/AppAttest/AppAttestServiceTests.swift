import Crypto
import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport
import TesseraWebAuthn

/// App Attest state per device (issue 41), on both databases, with attestations minted by
/// Server/Tests/Fixtures/appattest/mint.py under its test root: a challenge is used once (a second use, an
/// expired or an unknown one refused with its own code), an attestation stores the device's key with counter 0,
/// assertions must carry a growing counter, and of 8 concurrent assertions carrying the same counter exactly one
/// passes (the compare-and-set on the stored counter).
@Suite("App Attest service")
struct AppAttestServiceTests {
    /// What each test works with: the service, its clock, an active device and the minted attestation.
    struct Setup {
        var runtime: TesseraRuntime
        var service: AppAttestService
        var clock: ManualClock
        var deviceId: String
        /// The device key (X9.63 bytes) the challenges are bound to.
        var deviceKey: [UInt8]
        var attestation: AppAttestFixtures.Case
        var app: AppAttestApp { attestation.app }
    }

    /// Runs `body` on a fresh runtime of `kind` with a signed-up device and a service whose clock stands at the
    /// minted cases' time and whose first challenge is the minted attestation's.
    static func withSetup(_ kind: TestDatabase, _ body: (Setup) async throws -> Void) async throws {
        let minted = try await AppAttestFixtures.minted()
        let attestation = try minted.named("valid development attestation")
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let key = try minted.fixtureKey()
            let deviceId = try await AppAttestHTTPFixture.signUp(runtime, client, deviceKey: key)
            let clock = ManualClock(start: Int64(minted.time * 1000))
            let random = ScriptedRandom([Array(AppAttestFixtures.hex(attestation.challenge).prefix(16))])
            let service = try AppAttestService(
                database: runtime.database, devices: SQLDeviceRepository(database: runtime.database), audit: runtime.repositories.audit,
                trustedRoots: [minted.rootCertificate()], random: random.source, clock: clock.clock
            )
            try await body(Setup(
                runtime: runtime, service: service, clock: clock, deviceId: deviceId, deviceKey: Array(key.publicKey.x963Representation),
                attestation: attestation
            ))
        }
    }

    /// Attests the minted key for the setup's device with a challenge issued for it.
    static func attest(_ setup: Setup) async throws {
        let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey)
        try #require(Data(base64URLEncoded: challenge.challenge).map(Array.init) == AppAttestFixtures.hex(setup.attestation.challenge))
        try await setup.service.attest(
            deviceId: setup.deviceId, keyId: AppAttestFixtures.hex(setup.attestation.keyId),
            attestationObject: AppAttestFixtures.hex(setup.attestation.attestationObject), challenge: challenge.challenge, app: setup.app
        )
    }

    /// An assertion of the minted device key (or `signer`) over client data carrying `challenge`, with `counter`.
    static func assertion(
        _ setup: Setup, challenge: String, counter: UInt32, signer: P256.Signing.PrivateKey? = nil
    ) throws -> (assertion: [UInt8], clientData: [UInt8]) {
        let key = signer.map { Array($0.rawRepresentation) } ?? AppAttestFixtures.hex(setup.attestation.privateKey)
        return try AppAttestFixtures.assertion(privateKey: key, app: setup.app, challenge: challenge, counter: counter)
    }

    /// Sends an assertion with `counter` on a fresh challenge.
    @discardableResult
    static func verifyAssertion(_ setup: Setup, counter: UInt32, signer: P256.Signing.PrivateKey? = nil) async throws -> UInt32 {
        let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey).challenge
        let (assertion, clientData) = try Self.assertion(setup, challenge: challenge, counter: counter, signer: signer)
        return try await setup.service.verifyAssertion(
            deviceId: setup.deviceId, assertion: assertion, clientData: clientData, challenge: challenge, app: setup.app
        )
    }

    static func storedKey(_ setup: Setup) async throws -> AppAttestKeyRecord? {
        let deviceId = setup.deviceId, repository = setup.service.repository
        return try await setup.runtime.database.read { try await repository.key(deviceId: deviceId, in: $0) }
    }

    @Test("an attestation with an issued challenge stores the key with counter 0; the same challenge again is refused (7402)",
          arguments: TestDatabase.kinds)
    func attestOnce(kind: TestDatabase) async throws {
        try await Self.withSetup(kind) { setup in
            let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey)
            #expect(challenge.expiresIn == 300)
            let credential = try await setup.service.attest(
                deviceId: setup.deviceId, keyId: AppAttestFixtures.hex(setup.attestation.keyId),
                attestationObject: AppAttestFixtures.hex(setup.attestation.attestationObject), challenge: challenge.challenge, app: setup.app
            )
            let stored = try #require(try await Self.storedKey(setup))
            #expect(stored.keyId == AppAttestFixtures.hex(setup.attestation.keyId) && stored.keyId == credential.keyId)
            #expect(stored.publicKey == AppAttestFixtures.hex(setup.attestation.expectedPublicKey))
            #expect(stored.counter == 0 && stored.environment == .development && stored.receipt == credential.receipt)
            #expect(stored.attestedAt == setup.clock.clock.now())
            await expectCode(.appAttestChallengeUsed) {
                try await setup.service.attest(
                    deviceId: setup.deviceId, keyId: AppAttestFixtures.hex(setup.attestation.keyId),
                    attestationObject: AppAttestFixtures.hex(setup.attestation.attestationObject), challenge: challenge.challenge, app: setup.app
                )
            }
        }
    }

    @Test("an expired challenge (7403), an unknown one (7401) and another device's (7401) are refused", arguments: TestDatabase.kinds)
    func challengeRefusals(kind: TestDatabase) async throws {
        try await Self.withSetup(kind) { setup in
            let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey)
            setup.clock.advance(by: .seconds(300))
            let keyId = AppAttestFixtures.hex(setup.attestation.keyId), object = AppAttestFixtures.hex(setup.attestation.attestationObject)
            await expectCode(.appAttestChallengeExpired) {
                try await setup.service.attest(deviceId: setup.deviceId, keyId: keyId, attestationObject: object, challenge: challenge.challenge, app: setup.app)
            }
            let made = Data(RandomSource.system.bytes(32)).base64URLEncodedString()
            await expectCode(.appAttestChallengeUnknown) {
                try await setup.service.attest(deviceId: setup.deviceId, keyId: keyId, attestationObject: object, challenge: made, app: setup.app)
            }
            await expectCode(.appAttestChallengeUnknown) {
                try await setup.service.attest(deviceId: setup.deviceId, keyId: keyId, attestationObject: object, challenge: "short", app: setup.app)
            }
            let fresh = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey)
            await expectCode(.appAttestChallengeUnknown) {
                try await setup.service.attest(deviceId: "dev_other", keyId: keyId, attestationObject: object, challenge: fresh.challenge, app: setup.app)
            }
            #expect(try await Self.storedKey(setup) == nil)
        }
    }

    @Test("a verifier refusal keeps its own code (another team: 7416) and still uses the challenge up", arguments: TestDatabase.kinds)
    func verifierRefusalMapped(kind: TestDatabase) async throws {
        try await Self.withSetup(kind) { setup in
            let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey)
            let keyId = AppAttestFixtures.hex(setup.attestation.keyId), object = AppAttestFixtures.hex(setup.attestation.attestationObject)
            let other = AppAttestApp(teamID: "OTHERTEAM9", bundleID: setup.app.bundleID, environment: .development)
            await expectCode(.appAttestRpIdMismatch) {
                try await setup.service.attest(deviceId: setup.deviceId, keyId: keyId, attestationObject: object, challenge: challenge.challenge, app: other)
            }
            await expectCode(.appAttestChallengeUsed) {
                try await setup.service.attest(deviceId: setup.deviceId, keyId: keyId, attestationObject: object, challenge: challenge.challenge, app: setup.app)
            }
            #expect(try await Self.storedKey(setup) == nil)
        }
    }

    @Test("an assertion with counter 1 passes and stores 1; a replay (7402), a counter not grown (7421), another key (7420) are refused",
          arguments: TestDatabase.kinds)
    func assertions(kind: TestDatabase) async throws {
        try await Self.withSetup(kind) { setup in
            try await Self.attest(setup)
            let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey).challenge
            let (assertion, clientData) = try Self.assertion(setup, challenge: challenge, counter: 1)
            let counter = try await setup.service.verifyAssertion(
                deviceId: setup.deviceId, assertion: assertion, clientData: clientData, challenge: challenge, app: setup.app
            )
            #expect(counter == 1)
            #expect(try await Self.storedKey(setup)?.counter == 1)
            // The same request again: its challenge is used.
            await expectCode(.appAttestChallengeUsed) {
                try await setup.service.verifyAssertion(deviceId: setup.deviceId, assertion: assertion, clientData: clientData, challenge: challenge, app: setup.app)
            }
            // The same assertion on a fresh challenge: its client data names the old one.
            let fresh = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey).challenge
            await expectCode(.appAttestClientDataMismatch) {
                try await setup.service.verifyAssertion(deviceId: setup.deviceId, assertion: assertion, clientData: clientData, challenge: fresh, app: setup.app)
            }
            // A new assertion that did not count up, and one that went back.
            await expectCode(.appAttestCounterNotGrown) { _ = try await Self.verifyAssertion(setup, counter: 1) }
            await expectCode(.appAttestCounterNotGrown) { _ = try await Self.verifyAssertion(setup, counter: 0) }
            await expectCode(.appAttestBadSignature) { _ = try await Self.verifyAssertion(setup, counter: 2, signer: P256.Signing.PrivateKey()) }
            #expect(try await Self.verifyAssertion(setup, counter: 5) == 5)
            #expect(try await Self.storedKey(setup)?.counter == 5)
        }
    }

    @Test("of 8 concurrent assertions carrying the same counter exactly one passes; the others are refused 7421",
          arguments: TestDatabase.kinds)
    func concurrentAssertions(kind: TestDatabase) async throws {
        try await Self.withSetup(kind) { setup in
            try await Self.attest(setup)
            var requests: [(challenge: String, assertion: [UInt8], clientData: [UInt8])] = []
            for _ in 0..<8 {
                let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey).challenge
                let (assertion, clientData) = try Self.assertion(setup, challenge: challenge, counter: 1)
                requests.append((challenge, assertion, clientData))
            }
            let service = setup.service, deviceId = setup.deviceId, app = setup.app
            let outcomes = await withTaskGroup(of: Result<UInt32, AppError>.self) { group in
                for request in requests {
                    group.addTask {
                        do {
                            return .success(try await service.verifyAssertion(
                                deviceId: deviceId, assertion: request.assertion, clientData: request.clientData, challenge: request.challenge, app: app
                            ))
                        } catch let error as AppError {
                            return .failure(error)
                        } catch {
                            return .failure(AppError.internalError(detail: "\(error)"))
                        }
                    }
                }
                var all: [Result<UInt32, AppError>] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            let passed = outcomes.compactMap { try? $0.get() }
            let refused = outcomes.compactMap { outcome -> ErrorCode? in if case .failure(let error) = outcome { error.code } else { nil } }
            #expect(passed == [1])
            #expect(refused == Array(repeating: .appAttestCounterNotGrown, count: 7), "\(outcomes)")
            #expect(try await Self.storedKey(setup)?.counter == 1)
        }
    }

    @Test("an unknown device gets no challenge (3007); a device without an attested key cannot assert (7404)", arguments: TestDatabase.kinds)
    func unknownDevice(kind: TestDatabase) async throws {
        try await Self.withSetup(kind) { setup in
            await expectCode(.deviceUnknown) { _ = try await setup.service.challenge(for: "dev_unknown", deviceKey: setup.deviceKey) }
            let challenge = try await setup.service.challenge(for: setup.deviceId, deviceKey: setup.deviceKey).challenge
            let (assertion, clientData) = try Self.assertion(setup, challenge: challenge, counter: 1)
            await expectCode(.appAttestDeviceNotAttested) {
                try await setup.service.verifyAssertion(deviceId: setup.deviceId, assertion: assertion, clientData: clientData, challenge: challenge, app: setup.app)
            }
            await expectCode(.appAttestDeviceNotAttested) {
                try await setup.service.verifyAssertion(deviceId: "dev_unknown", assertion: assertion, clientData: clientData, challenge: challenge, app: setup.app)
            }
        }
    }
}
