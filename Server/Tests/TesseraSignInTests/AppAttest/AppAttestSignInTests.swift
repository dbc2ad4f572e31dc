import Crypto
import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// App Attest assertions on sign-in approvals (issue 41, item 2), on both databases through the device flow with the
/// runtime's embedded nodes: the channel tells the device whether an assertion is required or accepted; the assertion
/// travels inside the approval over client data carrying the channel's challenge; a missing one (when required), a
/// replayed counter, another challenge or another key end the request with their codes, audited (step `sign-in`).
@Suite("App Attest on sign-in approvals")
struct AppAttestSignInTests {
    /// The start request of `channel` for the fixture's device, with an assertion of `attestation`'s key with `counter`
    /// over client data whose challenge is `challenge` (the channel's by default).
    static func start(
        _ fixture: AppAttestHTTPFixture, _ channel: AuthChannelResponse, attestation: AppAttestFixtures.Case?, counter: UInt32 = 1,
        challenge: String? = nil
    ) throws -> AuthStartRequest {
        let statement = AuthStatement.challenge(channelId: channel.channelId, deviceId: fixture.deviceId, challenge: channel.challenge)
        var request = AuthStartRequest(challengeSignature: try fixture.deviceKey.signature(for: statement).rawRepresentation.base64EncodedString())
        if let attestation {
            let (assertion, clientData) = try AppAttestFixtures.assertion(
                privateKey: AppAttestFixtures.hex(attestation.privateKey), app: attestation.app, challenge: challenge ?? channel.challenge, counter: counter
            )
            request.appAttestAssertion = AppAttestSignInAssertion(
                assertion: Data(assertion).base64EncodedString(), clientData: Data(clientData).base64EncodedString()
            )
        }
        return request
    }

    @Test("accepted, then required: the channel says so; without an assertion 7422, with one the approval passes; replay 7421, other challenge 7405", arguments: TestDatabase.kinds)
    func approvals(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture async throws in
            let flow = fixture.runtime.auth.device, client = fixture.client, deviceId = fixture.deviceId
            let attestation = try fixture.minted.named("valid development attestation")
            #expect(try await flow.open(deviceId: deviceId, client: client, ip: nil).appAttestAssertion == nil, "policy off")
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            #expect(try await flow.open(deviceId: deviceId, client: client, ip: nil).appAttestAssertion == nil, "no attested key yet")
            #expect(try await fixture.attest(attestation).status == .created)

            // reported, no assertion asked: accepted; an approval without one passes, one with a valid one too.
            let first = try await flow.open(deviceId: deviceId, client: client, ip: nil)
            #expect(first.appAttestAssertion == "accepted")
            _ = try await flow.start(channelId: first.channelId, deviceId: deviceId, client: client, request: try Self.start(fixture, first, attestation: nil))
            let second = try await flow.open(deviceId: deviceId, client: client, ip: nil)
            _ = try await flow.start(channelId: second.channelId, deviceId: deviceId, client: client, request: try Self.start(fixture, second, attestation: attestation, counter: 1))
            #expect(try await fixture.adminState().counter == 1)

            var settings = AppAttestHTTPFixture.settings()
            settings.assertSignIn = true
            #expect(try await fixture.putSettings(settings).status == .ok)
            let missing = try await flow.open(deviceId: deviceId, client: client, ip: nil)
            #expect(missing.appAttestAssertion == "required")
            #expect(await AppAttestHTTPFixture.refusal {
                _ = try await flow.start(channelId: missing.channelId, deviceId: deviceId, client: client, request: try Self.start(fixture, missing, attestation: nil))
            } == .appAttestAssertionRequired)
            // The request ended: no second try on it.
            #expect(await AppAttestHTTPFixture.refusal {
                _ = try await flow.start(channelId: missing.channelId, deviceId: deviceId, client: client, request: try Self.start(fixture, missing, attestation: attestation, counter: 2))
            } != nil)
            let asserted = try await flow.open(deviceId: deviceId, client: client, ip: nil)
            let answer = try await flow.start(
                channelId: asserted.channelId, deviceId: deviceId, client: client, request: try Self.start(fixture, asserted, attestation: attestation, counter: 2)
            )
            #expect(answer.nodes.count >= 2)
            #expect(try await fixture.adminState().counter == 2)
            let replay = try await flow.open(deviceId: deviceId, client: client, ip: nil)
            #expect(await AppAttestHTTPFixture.refusal {
                _ = try await flow.start(channelId: replay.channelId, deviceId: deviceId, client: client, request: try Self.start(fixture, replay, attestation: attestation, counter: 2))
            } == .appAttestCounterNotGrown)
            let other = try await flow.open(deviceId: deviceId, client: client, ip: nil)
            #expect(await AppAttestHTTPFixture.refusal {
                _ = try await flow.start(
                    channelId: other.channelId, deviceId: deviceId, client: client,
                    request: try Self.start(fixture, other, attestation: attestation, counter: 3, challenge: first.challenge)
                )
            } == .appAttestClientDataMismatch)
            let anotherKey = try fixture.minted.named("valid production attestation")
            let forged = try await flow.open(deviceId: deviceId, client: client, ip: nil)
            #expect(await AppAttestHTTPFixture.refusal {
                _ = try await flow.start(channelId: forged.channelId, deviceId: deviceId, client: client, request: try Self.start(fixture, forged, attestation: anotherKey, counter: 9))
            } == .appAttestBadSignature)
            #expect(try await fixture.adminState().counter == 2)

            let audit = fixture.runtime.repositories.audit
            let failed = try await fixture.runtime.database.read { sql in try await audit.entries(AuditQuery(limit: 500), in: sql) }
                .filter { $0.type == "device.app_attest.failed" }.map(\.details)
            for code in [ErrorCode.appAttestAssertionRequired, .appAttestCounterNotGrown, .appAttestClientDataMismatch, .appAttestBadSignature] {
                #expect(failed.contains(#"{"code":"\#(code.rawValue)","step":"sign-in"}"#), "\(code)")
            }
        }
    }
}
