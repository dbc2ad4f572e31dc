import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// The device's App Attest routes (issue 41), over HTTP on both databases, with attestations minted by
/// Server/Tests/Fixtures/appattest/mint.py under its test root (given to the server as `appAttest.roots`): a valid
/// attestation is stored and shown in the admin's device view; assertions advance the counter; a client whose
/// policy is off is refused with 7406; each bad input gets its own code.
@Suite("App Attest HTTP")
struct AppAttestHTTPTests {
    @Test("a minted attestation is stored (201) and shown in the admin's device view; assertions advance its counter", arguments: TestDatabase.kinds)
    func attestAndAssert(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            let attestation = try fixture.minted.named("valid development attestation")
            #expect(try await fixture.adminState() == .notAttested)
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            let attested = try await fixture.attest(attestation)
            #expect(attested.status == .created, "\(String(buffer: attested.body))")
            let expected = AppAttestDeviceState(
                attested: true, keyId: Data(AppAttestFixtures.hex(attestation.keyId)).base64EncodedString(), environment: "development",
                attestedAt: fixture.clock.clock.now(), counter: 0
            )
            #expect(try JSONDecoder().decode(AppAttestDeviceState.self, from: Data(buffer: attested.body)) == expected)
            #expect(try await fixture.adminState() == expected)

            let first = try await fixture.assert(attestation, counter: 1)
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            #expect(try JSONDecoder().decode(AppAttestAssertionResult.self, from: Data(buffer: first.body)).counter == 1)
            fixture.clock.advance(by: .seconds(60))
            #expect(try await fixture.assert(attestation, counter: 5).status == .ok)
            var advanced = expected
            advanced.counter = 5
            #expect(try await fixture.adminState() == advanced)
            // The same counter again (a replay) and a smaller one are refused; the stored counter stays.
            expectProblem(try await fixture.assert(attestation, counter: 5), .unauthorized, .appAttestCounterNotGrown)
            expectProblem(try await fixture.assert(attestation, counter: 2), .unauthorized, .appAttestCounterNotGrown)
            #expect(try await fixture.adminState().counter == 5)
        }
    }

    @Test("while the client's policy is off (the default, or set back to off) every route answers 403 with 7406", arguments: TestDatabase.kinds)
    func policyOff(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            let attestation = try fixture.minted.named("valid development attestation")
            let made = Data(RandomSource.system.bytes(32)).base64URLEncodedString()
            expectProblem(try await fixture.post("/v1/devices/app-attest/challenge"), .forbidden, .appAttestOff)
            expectProblem(try await fixture.attest(attestation, challenge: made), .forbidden, .appAttestOff)
            expectProblem(try await fixture.assert(attestation, counter: 1, challenge: made), .forbidden, .appAttestOff)
            // On, then off again: refused again, and the key attested meanwhile is still shown.
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            #expect(try await fixture.attest(attestation).status == .created)
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("off")).status == .ok)
            expectProblem(try await fixture.post("/v1/devices/app-attest/challenge"), .forbidden, .appAttestOff)
            expectProblem(try await fixture.assert(attestation, counter: 1, challenge: made), .forbidden, .appAttestOff)
            #expect(try await fixture.adminState().attested)
        }
    }

    @Test("bad inputs get their codes: not base64 (1005), unknown (7401), used (7402), expired (7403) challenge, no key (7404), client data (7405)",
          arguments: TestDatabase.kinds)
    func badInputs(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            let attestation = try fixture.minted.named("valid development attestation")
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            let made = Data(RandomSource.system.bytes(32)).base64URLEncodedString()
            expectProblem(try await fixture.assert(attestation, counter: 1, challenge: made), .notFound, .appAttestDeviceNotAttested)
            expectProblem(try await fixture.attest(attestation, challenge: made, keyId: "not base64!"), .badRequest, .fieldInvalid, field: "keyId")
            let empty = #"{"keyId":"","attestationObject":"","challenge":"x"}"#
            expectProblem(try await fixture.post("/v1/devices/app-attest/attestation", body: Data(empty.utf8)), .badRequest, .fieldInvalid, field: "keyId")
            let missing = #"{"keyId":"AAAA","challenge":"x"}"#
            let response = try await fixture.post("/v1/devices/app-attest/attestation", body: Data(missing.utf8))
            #expect(response.status == .badRequest && AppAttestHTTPFixture.problem(response)?.code == ErrorCode.fieldMissing.rawValue)
            expectProblem(try await fixture.attest(attestation, challenge: made), .unauthorized, .appAttestChallengeUnknown)
            expectProblem(try await fixture.attest(attestation, challenge: "short"), .unauthorized, .appAttestChallengeUnknown)

            // Expired: issued, then the clock passes its five minutes (refused before the attestation is looked at).
            let issued = try await fixture.challenge()
            fixture.clock.advance(by: .seconds(300))
            expectProblem(try await fixture.attest(attestation, challenge: issued), .unauthorized, .appAttestChallengeExpired)
            #expect(try await fixture.adminState() == .notAttested)

            #expect(try await fixture.attest(attestation).status == .created)
            let used = try await fixture.challenge()
            #expect(try await fixture.assert(attestation, counter: 1, challenge: used).status == .ok)
            expectProblem(try await fixture.assert(attestation, counter: 2, challenge: used), .unauthorized, .appAttestChallengeUsed)
            expectProblem(
                try await fixture.assert(attestation, counter: 2, clientDataChallenge: made), .unauthorized, .appAttestClientDataMismatch
            )
            #expect(try await fixture.assert(attestation, counter: 2).status == .ok)
        }
    }

    @Test("the verifier's refusals keep their codes over HTTP: wrong chain (7412), another team (7416), development AAGUID under production (7418)",
          arguments: TestDatabase.kinds)
    func verifierRefusals(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            let chain = try fixture.minted.named("wrong chain: credential certificate from another CA")
            expectProblem(try await fixture.attest(chain), .unauthorized, .appAttestWrongChain)
            expectProblem(try await fixture.attest(try fixture.minted.named("rpIdHash of another team")), .unauthorized, .appAttestRpIdMismatch)
            expectProblem(try await fixture.attest(try fixture.minted.named("not CBOR")), .badRequest, .appAttestMalformed)
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings(environment: "production")).status == .ok)
            let development = try fixture.minted.named("development AAGUID under a production client")
            expectProblem(try await fixture.attest(development), .unauthorized, .appAttestAaguidMismatch)
            #expect(try await fixture.adminState() == .notAttested)
            // The client's settings decide: the valid development attestation under production settings is refused too.
            let valid = try fixture.minted.named("valid development attestation")
            expectProblem(try await fixture.attest(valid), .unauthorized, .appAttestAaguidMismatch)
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required", environment: "production")).status == .ok)
            let production = try await fixture.attest(try fixture.minted.named("valid production attestation"))
            #expect(production.status == .created, "\(String(buffer: production.body))")
            #expect(try await fixture.adminState().environment == "production")
        }
    }

    @Test("another client's headers on the device's signature: 401 (3007); the janitor purges expired challenges (then 7401)",
          arguments: TestDatabase.kinds)
    func otherClientAndJanitor(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            let other = try await fixture.runtime.makeTestClient(bundle: "org.example.tessera")
            expectProblem(try await fixture.post("/v1/devices/app-attest/challenge", client: other), .unauthorized, .deviceUnknown)

            let attestation = try fixture.minted.named("valid development attestation")
            let issued = try await fixture.challenge(queued: attestation.challenge)
            fixture.clock.advance(by: .seconds(301))
            await fixture.runtime.janitor.sweep()
            // Kept a lifetime after expiry: still told apart as expired.
            expectProblem(try await fixture.attest(attestation, challenge: issued), .unauthorized, .appAttestChallengeExpired)
            fixture.clock.advance(by: .seconds(300))
            await fixture.runtime.janitor.sweep()
            expectProblem(try await fixture.attest(attestation, challenge: issued), .unauthorized, .appAttestChallengeUnknown)
        }
    }
}
