import Crypto
import Foundation
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// App Attest at enrolment without a challenge call (issue 41): the attestation's challenge is the one the app derives
/// from the secret the enrolment uses up (``AppAttestDeviceBinding/enrolmentChallenge(secret:deviceKey:)``, minted by
/// mint.py with its own derivation) — a sign-up's dispose token, the token of a session registering its device key.
/// Single use as the secret is; a challenge derived from another secret or for another device key is neither derived
/// nor issued (7401); the enrolment's audit entries go in one append.
@Suite("App Attest at enrolment: the challenge derived from the enrolment's secret")
struct AppAttestDerivedChallengeTests {
    @Test("required: a sign-up whose attestation uses the dispose token's challenge enrols attested, without a challenge call; audited with the enrolment", arguments: TestDatabase.kinds)
    func derived(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            let bound = try fixture.minted.named("bound to a dispose token")
            let token = try #require(bound.enrolmentSecret)
            let challenge = Data(AppAttestFixtures.hex(bound.challenge)).base64URLEncodedString()
            let response = try await fixture.signUp(
                "bob", deviceKey: try bound.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(bound, challenge: challenge), disposeToken: token
            )
            #expect(response.status == .ok || response.status == .created, "\(String(buffer: response.body))")
            let state = try #require(try await fixture.adminState(userKey: "bob"))
            #expect(state.attested)
            let deviceId = try JSONDecoder().decode(SignUpResponse.self, from: Data(buffer: response.body)).deviceId
            // The nodes get the derived challenge with the evidence: it is bound to the device key like an issued one.
            let enrolment = fixture.runtime.repositories.appAttestEnrolment
            let evidence = try await fixture.runtime.database.read { sql in try await enrolment.evidence(deviceIds: [deviceId], in: sql) }
            #expect(evidence[deviceId]?.challenge == AppAttestFixtures.hex(bound.challenge))
            // One append: the attestation's entry follows device.enrolled directly, before session.created.
            let audit = fixture.runtime.repositories.audit
            let entries = try await fixture.runtime.database.read { sql in try await audit.entries(AuditQuery(limit: 500), in: sql) }
                .filter { $0.deviceId == deviceId }.sorted { $0.seq < $1.seq }
            #expect(entries.map(\.type) == ["device.enrolled", "device.app_attest.attested", "session.created"])
            #expect(Set(zip(entries.dropFirst(), entries).map { $0.seq - $1.seq }) == [1])
            // The token is used up, and with it the challenge: the same sign-up again writes nothing.
            let before = try await fixture.userKeys()
            let again = try await fixture.signUpWithToken(
                token, email: "bob@example.com", userKey: "carol", deviceKey: try bound.deviceKey(), appAttest: AppAttestHTTPFixture.evidence(bound, challenge: challenge)
            )
            #expect(again.status.code >= 400 && again.status.code < 500, "\(String(buffer: again.body))")
            #expect(try await fixture.userKeys() == before)
        }
    }

    @Test("required: the derived challenge sent with another dispose token, or with another device key, is refused (7401)", arguments: TestDatabase.kinds)
    func otherTokenOrKey(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            let bound = try fixture.minted.named("bound to a dispose token")
            let evidence = AppAttestHTTPFixture.evidence(bound, challenge: Data(AppAttestFixtures.hex(bound.challenge)).base64URLEncodedString())
            let before = try await fixture.userKeys()
            // A fresh (random) dispose token: the challenge is not the one derived from it, nor one issued.
            expectProblem(try await fixture.signUp("bob", deviceKey: try bound.deviceKey(), appAttest: evidence), .unauthorized, .appAttestChallengeUnknown)
            // The scripted token, but another device key: derived for that key, the challenge is not it.
            expectProblem(
                try await fixture.signUp("carol", deviceKey: P256.Signing.PrivateKey(), appAttest: evidence, disposeToken: bound.enrolmentSecret),
                .unauthorized, .appAttestChallengeUnknown
            )
            #expect(try await fixture.userKeys() == before)
        }
    }

    @Test("required: a session registers its device key with an attestation over its token's challenge; without one 7407; the challenge serves once", arguments: TestDatabase.kinds)
    func sessionDevice(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("required")).status == .ok)
            let bound = try fixture.minted.named("bound to a session token")
            let token = try #require(bound.enrolmentSecret)
            let session = try await fixture.pendingSession(phone: "+41790000777", scripted: token)
            let evidence = AppAttestHTTPFixture.evidence(bound, challenge: Data(AppAttestFixtures.hex(bound.challenge)).base64URLEncodedString())
            expectProblem(
                try await fixture.putSessionDevice(session, deviceKey: try bound.deviceKey(), appAttest: nil), .forbidden, .appAttestRequired
            )
            // Another session's token: the challenge is neither derived from it nor issued.
            let other = try await fixture.pendingSession(phone: "+41790000778", scripted: nil)
            expectProblem(
                try await fixture.putSessionDevice(other, deviceKey: try bound.deviceKey(), appAttest: evidence), .unauthorized, .appAttestChallengeUnknown
            )
            let response = try await fixture.putSessionDevice(session, deviceKey: try bound.deviceKey(), appAttest: evidence)
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let deviceId = try JSONDecoder().decode(SessionDeviceResponse.self, from: Data(buffer: response.body)).deviceId
            #expect(try await fixture.runtime.appAttest.state(deviceId: deviceId).attested)
            // The session has its device key: the same registration again is refused, nothing more is written.
            let again = try await fixture.putSessionDevice(session, deviceKey: try bound.deviceKey(), appAttest: evidence)
            #expect(again.status.code >= 400 && again.status.code < 500, "\(String(buffer: again.body))")
        }
    }
}
