import Crypto
import Foundation
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport
import TesseraWebAuthn

/// App Attest at enrolment (issue 41, item 2), over HTTP on both databases with minted bound attestations: under the
/// policy `required` a device without a valid attestation cannot enrol (7407, or the attestation's own code) and
/// nothing of it is written; the challenge is bound to the device key (7409 for another key's), single use, issued
/// only while the policy is on; under `reported` a device may enrol without one; under `off` one sent is refused.
@Suite("App Attest at enrolment")
struct AppAttestEnrolmentTests {
    @Test("required: sign-up without appAttest is refused (403, 7407), nothing written, audited as failed (step enrolment)", arguments: TestDatabase.kinds)
    func requiredWithout(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            let before = try await fixture.userKeys()
            expectProblem(try await fixture.signUp("bob", deviceKey: P256.Signing.PrivateKey(), appAttest: nil), .forbidden, .appAttestRequired)
            #expect(try await fixture.userKeys() == before)
            let audit = fixture.runtime.repositories.audit
            let failed = try await fixture.runtime.database.read { sql in try await audit.entries(AuditQuery(limit: 500), in: sql) }
                .filter { $0.type == "device.app_attest.failed" }
            #expect(failed.map(\.details) == [#"{"code":"\#(ErrorCode.appAttestRequired.rawValue)","step":"enrolment"}"#])
            #expect(failed.first?.clientId == fixture.client.id)
        }
    }

    @Test("required: sign-up with a bound attestation enrols the device attested (admin view), its evidence kept", arguments: TestDatabase.kinds)
    func requiredWith(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            let bound = try fixture.minted.named("bound development attestation")
            let challenge = try await fixture.enrolmentChallenge(for: bound)
            let response = try await fixture.signUp("bob", deviceKey: try bound.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(bound, challenge: challenge))
            #expect(response.status == .ok || response.status == .created, "\(String(buffer: response.body))")
            let state = try #require(try await fixture.adminState(userKey: "bob"))
            #expect(state.attested)
            #expect(state.keyId == Data(AppAttestFixtures.hex(bound.keyId)).base64EncodedString())
            #expect(state.counter == 0)
            let deviceId = try JSONDecoder().decode(SignUpResponse.self, from: Data(buffer: response.body)).deviceId
            let enrolment = fixture.runtime.repositories.appAttestEnrolment
            let evidence = try await fixture.runtime.database.read { sql in try await enrolment.evidence(deviceIds: [deviceId], in: sql) }
            // The nodes' evidence is the object without Apple's receipt (which the key's row keeps, once).
            #expect(evidence[deviceId]?.attestationObject == (try AppAttestVerifier.evidence(AppAttestFixtures.hex(bound.attestationObject))))
            #expect(evidence[deviceId]?.attestationObject != AppAttestFixtures.hex(bound.attestationObject))
            let key = try await fixture.runtime.database.read { sql in try await SQLAppAttestRepository().key(deviceId: deviceId, in: sql) }
            #expect(String(decoding: key?.receipt.prefix(13) ?? [], as: UTF8.self) == "test receipt ")
            #expect(evidence[deviceId]?.challenge == AppAttestFixtures.hex(bound.challenge))
            // The device's logins accept an assertion of the key attested at enrolment.
            let channel = try await fixture.runtime.auth.device.open(deviceId: deviceId, client: fixture.client, ip: nil)
            #expect(channel.appAttestAssertion == "accepted")
            // The challenge was used: the same enrolment again is refused (7402) before anything else.
            expectProblem(
                try await fixture.signUp("carol", deviceKey: try bound.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(bound, challenge: challenge)),
                .unauthorized, .appAttestChallengeUsed
            )
        }
    }

    @Test("required: an attestation of a wrong chain (7412), a made-up challenge (7401), a challenge of another device key (7409) are refused", arguments: TestDatabase.kinds)
    func requiredRefusals(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            let before = try await fixture.userKeys()
            let chain = try fixture.minted.named("bound, wrong chain")
            let chainChallenge = try await fixture.enrolmentChallenge(for: chain)
            expectProblem(
                try await fixture.signUp("carol", deviceKey: try chain.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(chain, challenge: chainChallenge)),
                .unauthorized, .appAttestWrongChain
            )
            let valid = try fixture.minted.named("bound development attestation")
            let madeUp = Data(RandomSource.system.bytes(32)).base64URLEncodedString()
            expectProblem(
                try await fixture.signUp("dave", deviceKey: try valid.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(valid, challenge: madeUp)),
                .unauthorized, .appAttestChallengeUnknown
            )
            // A valid attestation sent with another device key than the one its challenge is bound to.
            let validChallenge = try await fixture.enrolmentChallenge(for: valid)
            expectProblem(
                try await fixture.signUp("erin", deviceKey: P256.Signing.PrivateKey(), appAttest: AppAttestHTTPFixture.evidence(valid, challenge: validChallenge)),
                .unauthorized, .appAttestChallengeNotBound
            )
            #expect(try await fixture.userKeys() == before)
        }
    }

    @Test("reported: a device without appAttest enrols (not attested); off: the challenge route and an appAttest sent answer 7406", arguments: TestDatabase.kinds)
    func reportedAndOff(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            let bound = try fixture.minted.named("bound development attestation")
            let key = try bound.deviceKey().publicKey.x963Representation.base64EncodedString()
            expectProblem(try await fixture.enrolmentChallengeResponse(devicePublicKey: key), .forbidden, .appAttestOff)
            let made = AppAttestHTTPFixture.evidence(bound, challenge: Data(AppAttestFixtures.hex(bound.challenge)).base64URLEncodedString())
            expectProblem(try await fixture.signUp("bob", deviceKey: try bound.deviceKey(), appAttest: made), .forbidden, .appAttestOff)

            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("reported")).status == .ok)
            let plain = try await fixture.signUp("carol", deviceKey: P256.Signing.PrivateKey(), appAttest: nil)
            #expect(plain.status == .ok || plain.status == .created, "\(String(buffer: plain.body))")
            #expect(try await fixture.adminState(userKey: "carol") == .notAttested)
            let challenge = try await fixture.enrolmentChallenge(for: bound)
            let attested = try await fixture.signUp("dave", deviceKey: try bound.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(bound, challenge: challenge))
            #expect(attested.status == .ok || attested.status == .created, "\(String(buffer: attested.body))")
            #expect(try await fixture.adminState(userKey: "dave")?.attested == true)
            // A device key that is not a P-256 point gets no challenge.
            expectProblem(try await fixture.enrolmentChallengeResponse(devicePublicKey: "bm90IGEga2V5"), .badRequest, .fieldInvalid, field: "devicePublicKey")
        }
    }

    @Test("an enrolment challenge expires after 5 minutes of the injected clock (7403)", arguments: TestDatabase.kinds)
    func expired(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            let bound = try fixture.minted.named("bound development attestation")
            let challenge = try await fixture.enrolmentChallenge(for: bound)
            fixture.clock.advance(by: .seconds(301))
            expectProblem(
                try await fixture.signUp("bob", deviceKey: try bound.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(bound, challenge: challenge)),
                .unauthorized, .appAttestChallengeExpired
            )
        }
    }

    @Test("required: re-registration without appAttest is refused (7407), the old device stays; with one the new device is attested", arguments: TestDatabase.kinds)
    func reRegistration(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            let runtime = fixture.runtime
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            fixture.clock.advance(by: .seconds(3600))  // past the resend cooldown of the sign-up's address
            _ = try await runtime.otp.send(client: fixture.client, channel: .email, target: "alice@example.com", purpose: .recovery, ip: nil)
            let code = try await runtime.deliverAndReadCode(to: "alice@example.com")
            guard case .valid(let token) = try await runtime.otp.verify(
                client: fixture.client, channel: .email, target: "alice@example.com", code: code, purpose: .recovery
            ) else { throw ConfigurationError("code refused") }
            let bound = try fixture.minted.named("bound development attestation, second device")
            var request = RegisterDeviceRequest(
                userKey: "alice", disposeToken: token, appVersion: "1.0", token: "", authType: "PIN", os: "Linux",
                devicePublicKey: try bound.deviceKey().publicKey.x963Representation.base64EncodedString(),
                userVerificationPublicKey: P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString(), pin: "482913"
            )
            do {
                _ = try await runtime.registration.register(request, client: fixture.client)
                Issue.record("re-registration without appAttest was not refused")
            } catch let problem as AppError {
                #expect(problem.code == .appAttestRequired)
            }
            #expect(try await SQLDeviceRepository(database: runtime.database).signingKey(for: fixture.deviceId)?.revoked == false)
            request.appAttest = AppAttestHTTPFixture.evidence(bound, challenge: try await fixture.enrolmentChallenge(for: bound))
            let registered = try await runtime.registration.register(request, client: fixture.client)
            #expect(try await runtime.appAttest.state(deviceId: registered.deviceId).attested)
            #expect(try await SQLDeviceRepository(database: runtime.database).signingKey(for: fixture.deviceId)?.revoked == true)
        }
    }

    @Test("enrolment challenges are limited per address and hour (7423 with Retry-After); another address and the next hour are not", arguments: TestDatabase.kinds)
    func rateLimited(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture async throws in
            let runtime = fixture.runtime
            let service = try AppAttestService(
                database: runtime.database, devices: runtime.repositories.devices, audit: runtime.repositories.audit,
                trustedRoots: [try fixture.minted.rootCertificate()], random: .system, clock: fixture.clock.clock, enrolmentChallengesPerHour: 2
            )
            let key = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
            for _ in 0..<2 { _ = try await service.enrolmentChallenge(clientId: fixture.client.id, devicePublicKey: key, ip: "198.51.100.7") }
            do {
                _ = try await service.enrolmentChallenge(clientId: fixture.client.id, devicePublicKey: key, ip: "198.51.100.7")
                Issue.record("a third challenge from the address was issued")
            } catch let problem as AppError {
                #expect(problem.code == .appAttestRateLimited)
                #expect((problem.retryAfter ?? 0) > 0 && (problem.retryAfter ?? 0) <= 3600)
            }
            _ = try await service.enrolmentChallenge(clientId: fixture.client.id, devicePublicKey: key, ip: "198.51.100.8")
            fixture.clock.advance(by: .seconds(3600))
            _ = try await service.enrolmentChallenge(clientId: fixture.client.id, devicePublicKey: key, ip: "198.51.100.7")
        }
    }
}
