import Foundation
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// App Attest's audit entries and webhooks (issue 41, item 5), over HTTP on both databases: a verified attestation is
/// audited as `device.app_attest.attested`, a refused attestation or assertion as `device.app_attest.failed` with the
/// step and the problem code (kept although the request answered a problem), each naming the device, its user and
/// its client, and queued for the client's endpoint subscribed to `device.app_attest.*`; no row carries the
/// attestation object, the challenge or the assertion.
@Suite("App Attest audit")
struct AppAttestAuditTests {
    @Test("attested, refused attestation and refused assertion: audited with step and code, queued as webhooks, no secrets", arguments: TestDatabase.kinds)
    func auditedAndQueued(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            let runtime = fixture.runtime
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            let endpoint = try await runtime.webhookAdmin.create(
                clientKey: fixture.client.clientKey, CreateWebhookRequest(url: "http://127.0.0.1:9/hooks", eventTypes: ["device.app_attest.*"])
            )
            let chain = try fixture.minted.named("wrong chain: credential certificate from another CA")
            expectProblem(try await fixture.attest(chain), .unauthorized, .appAttestWrongChain)
            let valid = try fixture.minted.named("valid development attestation")
            #expect(try await fixture.attest(valid).status == .created)
            #expect(try await fixture.assert(valid, counter: 1).status == .ok)
            expectProblem(try await fixture.assert(valid, counter: 1), .unauthorized, .appAttestCounterNotGrown)

            let audit = runtime.repositories.audit
            let entries = try await runtime.database.read { sql in
                try await audit.entries(AuditQuery(limit: 500), in: sql)
            }.filter { $0.type.hasPrefix("device.app_attest.") }
            #expect(entries.map(\.type) == ["device.app_attest.failed", "device.app_attest.attested", "device.app_attest.failed"])
            #expect(entries.allSatisfy {
                $0.actor == "device:\(fixture.deviceId)" && $0.deviceId == fixture.deviceId && $0.clientId == fixture.client.id && $0.userId != nil
            })
            let keyId = Data(AppAttestFixtures.hex(valid.keyId)).base64EncodedString()
            #expect(entries.map(\.details) == [
                #"{"code":"\#(ErrorCode.appAttestWrongChain.rawValue)","step":"attestation"}"#,
                #"{"environment":"development","keyId":"\#(keyId)"}"#,
                #"{"code":"\#(ErrorCode.appAttestCounterNotGrown.rawValue)","step":"assertion"}"#,
            ])
            let text = entries.map(\.details).joined()
            for secret in [valid.attestationObject, chain.attestationObject, valid.challenge] {
                #expect(!text.contains(Data(AppAttestFixtures.hex(secret)).base64EncodedString().prefix(16)))
            }

            let deliveries = try await runtime.webhookAdmin.deliveries(endpoint.endpoint.id, limit: 10, before: nil).deliveries
            #expect(deliveries.map(\.eventType).sorted() == ["device.app_attest.attested", "device.app_attest.failed", "device.app_attest.failed"])
        }
    }

    @Test("a refusal before the key is looked at is audited too: an assertion from a device without a key (7404), a used challenge (7402)",
          arguments: TestDatabase.kinds)
    func refusedEarly(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            #expect(try await fixture.putSettings(AppAttestHTTPFixture.settings()).status == .ok)
            let valid = try fixture.minted.named("valid development attestation")
            let made = Data(RandomSource.system.bytes(32)).base64URLEncodedString()
            expectProblem(try await fixture.assert(valid, counter: 1, challenge: made), .notFound, .appAttestDeviceNotAttested)
            let issued = try await fixture.challenge(queued: valid.challenge)
            #expect(try await fixture.attest(valid, challenge: issued).status == .created)
            expectProblem(try await fixture.attest(valid, challenge: issued), .unauthorized, .appAttestChallengeUsed)

            let audit = fixture.runtime.repositories.audit
            let failed = try await fixture.runtime.database.read { sql in
                try await audit.entries(AuditQuery(type: "device.app_attest.failed"), in: sql)
            }
            #expect(failed.map(\.details) == [
                #"{"code":"\#(ErrorCode.appAttestDeviceNotAttested.rawValue)","step":"assertion"}"#,
                #"{"code":"\#(ErrorCode.appAttestChallengeUsed.rawValue)","step":"attestation"}"#,
            ])
        }
    }
}
