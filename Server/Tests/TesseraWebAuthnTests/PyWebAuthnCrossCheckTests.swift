import Foundation
import Testing
import TesseraTestSupport
import X509
@testable import TesseraWebAuthn

/// Tessera's WebAuthn verification against an independent implementation on the same inputs:
/// Server/Tests/Fixtures/webauthn/mint_cases.py mints registrations and assertions with a software
/// authenticator (every supported format and algorithm, and negative cases, each with one thing
/// wrong) and records what py_webauthn (PyPI `webauthn`) says of each. Both must agree, case by case.
struct PyWebAuthnCrossCheckTests {
    /// Where the two differ on purpose: py_webauthn does not check the credential ID's length; W3C
    /// WebAuthn Level 3 §7.1 step 19 (and §5.8.3) caps it at 1023 bytes.
    static let knownDifferences: [String: WebAuthnError] = [
        "registration none ES256 credential ID 1024 bytes": .credentialIdTooLong(1024),
    ]

    static func hex(_ value: Any?) -> [UInt8] { CBORDecoderTests.hex(value as? String ?? "") }

    @Test("minted responses (none, packed self and x5c, fido-u2f; ES256, EdDSA, RS256; 18 negative cases): Tessera and py_webauthn agree on each")
    func agree() async throws {
        let python = try TestRequirements.python(importing: ["webauthn", "cbor2", "cryptography"], for: "the py_webauthn cross-check")
        let script = WebAuthnFixtures.directory.appendingPathComponent("mint_cases.py").path
        let run = try await ChildProcess.run(python, [script])
        try #require(run.status == 0, "\(run.output)")
        let json = try #require(run.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }), "\(run.output)")
        let cases = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["cases"] as? [[String: Any]])
        #expect(cases.count >= 30)
        var accepted = 0
        for item in cases {
            let name = item["name"] as? String ?? "?"
            let reference = item["py_webauthn"] as? String ?? "?"
            let roots = try (item["roots"] as? [String])?.map { try Certificate(derEncoded: Self.hex($0)) }
            let policy = RelyingPartyPolicy(
                rpId: item["rpId"] as? String ?? "", origins: [item["origin"] as? String ?? ""],
                requireUserVerification: item["requireUV"] as? Bool ?? true, attestationRoots: roots
            )
            let verifier = WebAuthnVerifier(policy: policy)
            let challenge = Self.hex(item["challenge"])
            var ours: WebAuthnError?
            do {
                if let registration = item["registration"] as? [String: Any] {
                    _ = try await verifier.verifyRegistration(
                        clientDataJSON: Self.hex(registration["clientDataJSON"]), attestationObject: Self.hex(registration["attestationObject"]),
                        challenge: challenge, time: Date()
                    )
                } else if let assertion = item["authentication"] as? [String: Any] {
                    let record = CredentialRecord(
                        credentialId: Self.hex(assertion["credentialId"]), publicKeyBytes: Self.hex(assertion["publicKey"]),
                        signCount: UInt32(assertion["storedSignCount"] as? Int ?? 0), userHandle: Self.hex(assertion["storedUserHandle"])
                    )
                    _ = try verifier.verifyAssertion(
                        credentialId: Self.hex(assertion["credentialId"]), clientDataJSON: Self.hex(assertion["clientDataJSON"]),
                        authenticatorData: Self.hex(assertion["authenticatorData"]), signature: Self.hex(assertion["signature"]),
                        userHandle: (assertion["userHandle"] as? String).map { Self.hex($0) }, challenge: challenge, credential: record,
                        allowCredentials: (assertion["allowCredentials"] as? [String])?.map { Self.hex($0) }
                    )
                } else {
                    Issue.record("\(name): neither registration nor authentication")
                    continue
                }
            } catch {
                ours = error
            }
            if let expected = Self.knownDifferences[name] {
                #expect(ours == expected, "\(name): Tessera \(String(describing: ours)), py_webauthn \(reference)")
                continue
            }
            #expect((ours == nil) == (reference == "ok"), "\(name): Tessera \(ours.map { "\($0.code): \($0)" } ?? "ok"), py_webauthn \(reference)")
            if ours == nil { accepted += 1 }
        }
        #expect(accepted >= 12, "the positive cases must be there: \(accepted) accepted")
    }
}
