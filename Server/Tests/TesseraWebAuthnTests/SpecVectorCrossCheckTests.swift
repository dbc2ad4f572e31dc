import Foundation
import Testing
import TesseraTestSupport
@testable import TesseraWebAuthn

/// The W3C WebAuthn Level 3 §16 test vectors through Tessera and through py_webauthn (PyPI
/// `webauthn`, Server/Tests/Fixtures/webauthn/check_l3_vectors.py, which accepts every algorithm
/// it knows): the verdicts agree, vector by vector, but for the differences listed with their reasons.
struct SpecVectorCrossCheckTests {
    /// Vector → (Tessera's verdict, why it differs from py_webauthn's).
    static let differences: [String: (ours: String, reason: String)] = [
        "Packed Attestation with ES512 Credential": ("unsupported_algorithm", "Tessera's allow-list is ES256, EdDSA and RS256 (issue 38)"),
        "Apple Anonymous Attestation with ES256 Credential": ("unsupported_attestation_format", "Tessera does not verify the apple format"),
        "FIDO U2F Attestation with ES256 Credential": ("ok", "py_webauthn wants an all-zero AAGUID; §8.6's verification procedure has no such step"),
    ]

    /// Tessera's verdict on a vector: `ok` when registration and authentication pass, else the refusal's code.
    static func verdict(_ vector: WebAuthnFixtures.Vector) async -> String {
        let verifier = WebAuthnVerifier(policy: SpecTestVectorTests.policy(vector))
        do {
            let result = try await verifier.verifyRegistration(
                clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge, time: SpecTestVectorTests.pinned
            )
            if let assertion = vector.assertion {
                let record = CredentialRecord(credentialId: result.credentialId, publicKeyBytes: result.publicKeyBytes, signCount: result.signCount, userHandle: [])
                _ = try verifier.verifyAssertion(
                    credentialId: vector.credentialId, clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData,
                    signature: assertion.signature, userHandle: nil, challenge: assertion.challenge, credential: record, allowCredentials: [vector.credentialId]
                )
            }
            return "ok"
        } catch {
            return error.code
        }
    }

    @Test("§16 vectors: Tessera and py_webauthn agree on each, but for three differences that have reasons")
    func agree() async throws {
        let python = try TestRequirements.python(importing: ["webauthn", "cbor2"], for: "the §16 cross-check with py_webauthn")
        let run = try await ChildProcess.run(python, [WebAuthnFixtures.directory.appendingPathComponent("check_l3_vectors.py").path])
        try #require(run.status == 0, "\(run.output)")
        var reference: [String: Bool] = [:]
        for line in run.output.split(separator: "\n") where line.hasPrefix("{") {
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = try #require(row["name"] as? String)
            reference[name] = row["registration"] as? String == "ok" && (row["authentication"] is NSNull || row["authentication"] as? String == "ok")
        }
        let vectors = try WebAuthnFixtures.vectors()
        #expect(reference.count == vectors.count)
        var agreed = 0
        for vector in vectors {
            let ours = await Self.verdict(vector)
            guard let theirs = reference[vector.name] else {
                Issue.record("py_webauthn said nothing of \(vector.name)")
                continue
            }
            if let difference = Self.differences[vector.name] {
                #expect(ours == difference.ours, "\(vector.name): \(ours)")
                #expect((ours == "ok") != theirs, "\(vector.name) no longer differs (\(difference.reason)): update the list")
            } else {
                #expect((ours == "ok") == theirs, "\(vector.name): Tessera \(ours), py_webauthn \(theirs ? "ok" : "refused")")
                agreed += 1
            }
        }
        #expect(agreed == vectors.count - Self.differences.count)
    }
}
