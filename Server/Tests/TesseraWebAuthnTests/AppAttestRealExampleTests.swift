import Crypto
import Foundation
import Testing
import TesseraTestSupport
import X509
@testable import TesseraWebAuthn

/// App Attest verification against Apple's real root and real devices' output: the attestations and first
/// assertions of Server/Tests/Fixtures/appattest/devicecheck-appattest-samples.json (the test fixtures of the
/// independent verifier github.com/veehaitch/devicecheck-appattest, made on iOS 14.2 and 14.4 in the
/// development environment). Their credential certificates were valid for three days, so the verification
/// time is pinned to when each attestation was made.
struct AppAttestRealExampleTests {
    static func date(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try #require(formatter.date(from: text), "date \(text)")
    }

    static func app(_ sample: AppAttestFixtures.Sample, environment: AppAttestEnvironment? = nil) -> AppAttestApp {
        AppAttestApp(
            teamID: sample.teamId, bundleID: sample.bundleId,
            environment: environment ?? AppAttestEnvironment(rawValue: sample.environment) ?? .production
        )
    }

    @Test("the pinned root is Apple App Attestation Root CA, self-signed, with the published fingerprint")
    func pinnedRoot() async throws {
        let root = try AppAttestRoot.certificate()
        #expect(root.subject.description.contains("CN=Apple App Attestation Root CA"))
        #expect(root.subject == root.issuer)
        let body = AppAttestRoot.pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body))
        #expect(try Certificate(derEncoded: Array(der)) == root)
        let fingerprint = SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined()
        #expect(fingerprint == AppAttestRoot.sha256Fingerprint)
        #expect(fingerprint == "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932")
        #expect(root.publicKey.isValidSignature(root.signature, for: root))
    }

    @Test("real attestations pass against Apple's root at their time; their first assertions pass with the returned key")
    func realAttestationsPass() async throws {
        let samples = try AppAttestFixtures.samples()
        #expect(samples.count == 2)
        for sample in samples {
            let verifier = try AppAttestVerifier(app: Self.app(sample))
            let credential = try await verifier.verifyAttestation(
                AppAttestFixtures.hex(sample.attestationObject), keyId: AppAttestFixtures.hex(sample.keyId),
                challenge: AppAttestFixtures.hex(sample.challenge), time: try Self.date(sample.attestationTime)
            )
            #expect(credential.keyId == AppAttestFixtures.hex(sample.keyId), "\(sample.name)")
            #expect(credential.environment == .development)
            #expect(credential.publicKey.count == 65 && credential.publicKey.first == 0x04)
            #expect(credential.receipt.count > 3000, "\(sample.name): receipt of \(credential.receipt.count) bytes")
            let counter = try verifier.verifyAssertion(
                AppAttestFixtures.hex(sample.assertion), clientData: AppAttestFixtures.hex(sample.assertionClientData),
                publicKey: credential.publicKey, storedCounter: credential.counter
            )
            #expect(counter == sample.assertionCounter, "\(sample.name)")
        }
    }

    @Test("the nodes' evidence: a real object without its receipt, byte for byte the rest, verifies to the same key; a tampered one does not")
    func evidenceWithoutReceipt() async throws {
        for sample in try AppAttestFixtures.samples() {
            let object = AppAttestFixtures.hex(sample.attestationObject)
            // Apple's encoding is the shortest form our encoder writes: decoding and encoding gives the same bytes.
            #expect(CBOREncoder.encode(try CBORDecoder().decode(object)) == object, "\(sample.name)")
            let evidence = try AppAttestVerifier.evidence(object)
            let receipt = try #require(try CBORDecoder().decode(object)[text: "attStmt"]?[text: "receipt"]?.bytes)
            #expect(evidence.count < object.count - receipt.count + 8, "\(sample.name): \(object.count) → \(evidence.count) bytes")
            let decoded = try CBORDecoder().decode(evidence)
            #expect(decoded[text: "attStmt"]?[text: "receipt"]?.bytes == [])
            #expect(decoded[text: "authData"] == (try CBORDecoder().decode(object))[text: "authData"])
            #expect(decoded[text: "attStmt"]?[text: "x5c"] == (try CBORDecoder().decode(object))[text: "attStmt"]?[text: "x5c"])
            let verifier = try AppAttestVerifier(app: Self.app(sample))
            let (keyId, challenge, time) = (AppAttestFixtures.hex(sample.keyId), AppAttestFixtures.hex(sample.challenge), try Self.date(sample.attestationTime))
            let original = try await verifier.verifyAttestation(object, keyId: keyId, challenge: challenge, time: time)
            let fromEvidence = try await verifier.verifyAttestation(evidence, keyId: keyId, challenge: challenge, time: time)
            #expect(fromEvidence.publicKey == original.publicKey && fromEvidence.keyId == original.keyId && fromEvidence.receipt.isEmpty)
            await #expect(throws: AppAttestError.nonceMismatch) {
                try await verifier.verifyAttestation(evidence, keyId: keyId, challenge: challenge + [0], time: time)
            }
        }
        #expect(throws: AppAttestError.self) { try AppAttestVerifier.evidence([0xA1, 0x61]) }
    }

    @Test("a real attestation is refused: today (its certificate expired), under a production client, for another app, for another challenge")
    func realAttestationRefused() async throws {
        let sample = try #require(try AppAttestFixtures.samples().first)
        let object = AppAttestFixtures.hex(sample.attestationObject), keyId = AppAttestFixtures.hex(sample.keyId)
        let challenge = AppAttestFixtures.hex(sample.challenge), time = try Self.date(sample.attestationTime)
        let cases: [(String, AppAttestApp, [UInt8], Date, AppAttestError)] = [
            ("now", Self.app(sample), challenge, Date(), .certificateExpired("the credential certificate")),
            ("production", Self.app(sample, environment: .production), challenge, time, .aaguidMismatch),
            ("other team", AppAttestApp(teamID: "ABCDE12345", bundleID: sample.bundleId, environment: .development), challenge, time, .rpIdMismatch),
            ("other challenge", Self.app(sample), Array("wurzelpfropfen".utf8), time, .nonceMismatch),
        ]
        for (name, app, challenge, time, expected) in cases {
            let verifier = try AppAttestVerifier(app: app)
            await #expect(throws: expected, "\(name)") {
                try await verifier.verifyAttestation(object, keyId: keyId, challenge: challenge, time: time)
            }
        }
    }

    @Test("a real assertion is refused as a replay once its counter is stored, and with another device's key")
    func realAssertionRefused() async throws {
        let samples = try AppAttestFixtures.samples()
        let first = try #require(samples.first), second = try #require(samples.last)
        let verifier = try AppAttestVerifier(app: Self.app(first))
        var keys: [[UInt8]] = []
        for sample in [first, second] {
            keys.append(try await verifier.verifyAttestation(
                AppAttestFixtures.hex(sample.attestationObject), keyId: AppAttestFixtures.hex(sample.keyId),
                challenge: AppAttestFixtures.hex(sample.challenge), time: try Self.date(sample.attestationTime)
            ).publicKey)
        }
        let assertion = AppAttestFixtures.hex(first.assertion), clientData = AppAttestFixtures.hex(first.assertionClientData)
        #expect(throws: AppAttestError.counterNotGrown(stored: 1, received: 1)) {
            try verifier.verifyAssertion(assertion, clientData: clientData, publicKey: keys[0], storedCounter: 1)
        }
        #expect(throws: AppAttestError.badSignature) {
            try verifier.verifyAssertion(assertion, clientData: clientData, publicKey: keys[1], storedCounter: 0)
        }
    }
}
