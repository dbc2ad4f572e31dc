import Foundation
import Testing
import TesseraTestSupport
import X509
@testable import TesseraWebAuthn

/// FIDO Metadata Service (MDS3) BLOBs: Tessera's reader agrees with PyPI fido2's `parse_blob` (an independent
/// implementation) on BLOBs minted by Server/Tests/Fixtures/webauthn/mint_mds.py (signed RS256 by a test root's
/// certificate, as the real service signs; a payload changed after signing; a chain to another root). Then the
/// BLOB in a relying party's policy, on the W3C WebAuthn §16 packed ES256 vector: its model's attestation root
/// from the metadata makes the chain trusted where attestation is required; a model reported REVOKED is refused,
/// as is a model outside the client's allowed AAGUIDs.
struct AuthenticatorMetadataTests {
    struct Minted {
        var root: Certificate
        var blobs: [String: (jwt: String, fido2: String)]
    }

    static func mint(certified: [UInt8], revoked: [UInt8]) async throws -> Minted {
        let python = try TestRequirements.python(importing: ["fido2", "cryptography"], for: "the FIDO metadata cross-check")
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        let run = try await ChildProcess.run(python, [
            WebAuthnFixtures.directory.appendingPathComponent("mint_mds.py").path, hex(certified), hex(revoked), hex(try WebAuthnFixtures.attestationRoot()),
        ])
        try #require(run.status == 0, "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }), "\(run.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let blobs = try #require(object["blobs"] as? [String: [String: String]])
        return Minted(
            root: try Certificate(derEncoded: CBORDecoderTests.hex(object["root"] as? String ?? "")),
            blobs: blobs.mapValues { ($0["jwt"] ?? "", $0["fido2"] ?? "") }
        )
    }

    static func vector() throws -> WebAuthnFixtures.Vector {
        try #require(try WebAuthnFixtures.vectors().first { $0.format == "packed" && $0.coseAlg == -7 && !$0.name.contains("Self") })
    }

    static func register(_ vector: WebAuthnFixtures.Vector, _ policy: RelyingPartyPolicy) async -> Result<VerifiedRegistration, WebAuthnError> {
        do {
            return .success(try await WebAuthnVerifier(policy: policy).verifyRegistration(
                clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge, time: SpecTestVectorTests.pinned
            ))
        } catch { return .failure(error) }
    }

    @Test("good, tampered and foreign BLOBs: Tessera and fido2 agree (read: number 42, two entries; the others refused)")
    func agreeWithFido2() async throws {
        let vector = try Self.vector()
        let minted = try await Self.mint(certified: vector.aaguid, revoked: Array(repeating: 0x11, count: 16))
        for (name, blob) in minted.blobs {
            let ours: String
            do {
                let metadata = try await AuthenticatorMetadata(jwt: blob.jwt, root: minted.root, time: Date())
                ours = "ok:\(metadata.number):\(metadata.entries.count)"
            } catch {
                ours = "refused"
            }
            #expect(ours.hasPrefix("ok") == blob.fido2.hasPrefix("ok"), "\(name): Tessera \(ours), fido2 \(blob.fido2)")
            if name == "good" { #expect(ours == "ok:42:2" && blob.fido2 == "ok:42:2") } else { #expect(ours == "refused", "\(name)") }
        }
        await #expect(throws: AuthenticatorMetadata.Invalid.self) { _ = try await AuthenticatorMetadata(jwt: "not.a.jwt", root: minted.root, time: Date()) }
    }

    @Test("attestation required with no roots of the client's own: the §16 packed chain is trusted through the model's MDS roots; untrusted without the BLOB")
    func rootsFromMetadata() async throws {
        let vector = try Self.vector()
        let minted = try await Self.mint(certified: vector.aaguid, revoked: Array(repeating: 0x11, count: 16))
        let metadata = try await AuthenticatorMetadata(jwt: try #require(minted.blobs["good"]).jwt, root: minted.root, time: Date())
        #expect(metadata.entry(aaguid: vector.aaguid)?.description == "Test Key Certified" && metadata.entry(aaguid: vector.aaguid)?.status == "FIDO_CERTIFIED_L1")
        var policy = SpecTestVectorTests.policy(vector, roots: [])
        guard case .failure(.untrustedAttestation) = await Self.register(vector, policy) else { Issue.record("trusted without roots"); return }
        policy.metadata = metadata
        guard case .success(let registered) = await Self.register(vector, policy) else { Issue.record("refused with the metadata's roots"); return }
        #expect(registered.attestationType == .certificate(trusted: true))
    }

    @Test("a model the metadata reports REVOKED is refused (authenticator_not_allowed), whatever the attestation; allowed AAGUIDs restrict the models")
    func refusedModels() async throws {
        let vector = try Self.vector()
        let minted = try await Self.mint(certified: Array(repeating: 0x11, count: 16), revoked: vector.aaguid)
        let metadata = try await AuthenticatorMetadata(jwt: try #require(minted.blobs["good"]).jwt, root: minted.root, time: Date())
        var policy = SpecTestVectorTests.policy(vector)
        policy.metadata = metadata
        guard case .failure(.authenticatorNotAllowed(let why)) = await Self.register(vector, policy) else { Issue.record("a revoked model registered"); return }
        #expect(why.contains("REVOKED") && why.contains("Test Key Revoked"))

        var allowed = SpecTestVectorTests.policy(vector)
        allowed.allowedAAGUIDs = [Array(repeating: 0x11, count: 16)]
        guard case .failure(.authenticatorNotAllowed) = await Self.register(vector, allowed) else { Issue.record("a model outside the list registered"); return }
        allowed.allowedAAGUIDs = [vector.aaguid]
        guard case .success = await Self.register(vector, allowed) else { Issue.record("an allowed model was refused"); return }
    }
}
