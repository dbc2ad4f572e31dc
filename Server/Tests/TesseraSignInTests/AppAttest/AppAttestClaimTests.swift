import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// The result token's `app_attest` claim (issue 41): the device lookup of every authentication step reads the
/// client's policy and whether the device attested its key in the same statement; the token carries `attested` or
/// `none` while the policy is on, nothing while it is off, and introspection repeats it.
@Suite("App Attest: the result token's claim")
struct AppAttestClaimTests {
    @Test("the device lookup: no claim while the policy is off, `none` before the attestation, `attested` after it", arguments: TestDatabase.kinds)
    func lookup(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture async throws in
            let devices = try #require(fixture.runtime.repositories.devices as? SQLDeviceRepository)
            let off = try #require(try await devices.authTarget(deviceId: fixture.deviceId))
            #expect(off.appAttestPolicy == nil && !off.appAttested && off.appAttestClaim == nil)
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            let before = try #require(try await devices.authTarget(deviceId: fixture.deviceId))
            #expect(before.appAttestPolicy == "reported" && !before.appAttested && before.appAttestClaim == "none")
            #expect(try await fixture.attest(try fixture.minted.named("valid development attestation")).status == .created)
            let after = try #require(try await devices.authTarget(deviceId: fixture.deviceId))
            #expect(after.appAttested && after.appAttestClaim == "attested")
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings("off")).status == .ok)
            let offAgain = try #require(try await devices.authTarget(deviceId: fixture.deviceId))
            #expect(offAgain.appAttested && offAgain.appAttestClaim == nil, "policy off: no claim, though the key stays attested")
        }
    }

    @Test("a result token with the claim: signed, verified, and repeated by introspection; without it, absent from both")
    func tokenAndIntrospection() async throws {
        try await AppAttestHTTPFixture.run(.sqlite) { fixture async throws in
            let tokens = fixture.runtime.tokens, client = fixture.client
            let introspection = Introspection(
                database: fixture.runtime.database, devices: fixture.runtime.repositories.devices, sessions: fixture.runtime.repositories.sessions,
                tokens: tokens, hasher: fixture.runtime.keys.hasher, clock: fixture.clock.clock
            )
            for claim in ["attested", "none", nil] as [String?] {
                let token = try await tokens.issue(
                    userKey: "u", clientKey: client.clientKey, clientId: client.clientKey, deviceId: fixture.deviceId,
                    channelId: "ch_\(claim ?? "off")", amr: ["hwk", "pin"], nodes: [], appAttest: claim
                )
                #expect(try await tokens.verify(token).appAttest == claim)
                let answer = try await introspection.introspect(token: token, client: client)
                #expect(answer.active && answer.appAttest == claim)
                let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.jsonBytes)) as? [String: Any])
                #expect(json["app_attest"] as? String == claim)
            }
        }
    }
}
