import Foundation
import Testing
import X509
@testable import TesseraWebAuthn

/// W3C WebAuthn Level 3 §16 (Test Vectors): every registration and authentication vector of the
/// specification, verified by §7.1 and §7.2 as Tessera implements them. The vectors' flags come
/// from the spec's generator (UV is random), so UV is not required here; the certificate chains are
/// checked at a pinned time inside the spec CA's validity (2024–3024).
struct SpecTestVectorTests {
    static let pinned = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
    static let supportedFormats: Set<String> = ["none", "packed", "fido-u2f"]
    static let supportedAlgorithms: Set<Int64> = [-7, -8, -257]

    static func policy(_ vector: WebAuthnFixtures.Vector, roots: [Certificate]? = nil, asNone: Bool = false) -> RelyingPartyPolicy {
        RelyingPartyPolicy(
            rpId: vector.rpId, origins: [vector.origin], allowCrossOrigin: true, topOrigins: ["https://example.com"], requireUserVerification: false,
            attestationRoots: roots, acceptUnverifiedFormatsAsNone: asNone
        )
    }

    @Test("§16: the vectors of supported formats and algorithms register (§7.1) and then authenticate (§7.2); the others are refused by name")
    func vectors() async throws {
        let vectors = try WebAuthnFixtures.vectors()
        #expect(vectors.count == 15)
        var registered = 0, authenticated = 0
        for vector in vectors {
            let verifier = WebAuthnVerifier(policy: Self.policy(vector))
            do {
                let result = try await verifier.verifyRegistration(
                    clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge, time: Self.pinned
                )
                #expect(Self.supportedFormats.contains(vector.format) && Self.supportedAlgorithms.contains(vector.coseAlg), "\(vector.name) accepted")
                #expect(result.credentialId == vector.credentialId, "\(vector.name)")
                // fido-u2f's signature does not cover the AAGUID the vector names: it is recorded as a U2F authenticator's.
                #expect(result.aaguid == (vector.format == "fido-u2f" ? [UInt8](repeating: 0, count: 16) : vector.aaguid), "\(vector.name)")
                #expect(result.attestationFormat == vector.format)
                #expect(result.algorithm.rawValue == vector.coseAlg)
                registered += 1
                guard let assertion = vector.assertion else { continue }
                let record = CredentialRecord(credentialId: result.credentialId, publicKeyBytes: result.publicKeyBytes, signCount: result.signCount, userHandle: [1])
                _ = try verifier.verifyAssertion(
                    credentialId: vector.credentialId, clientDataJSON: assertion.clientDataJSON, authenticatorData: assertion.authenticatorData,
                    signature: assertion.signature, userHandle: nil, challenge: assertion.challenge, credential: record, allowCredentials: [vector.credentialId]
                )
                authenticated += 1
            } catch .unsupportedAlgorithm(let alg) {
                #expect(alg == vector.coseAlg && !Self.supportedAlgorithms.contains(alg), "\(vector.name)")
            } catch .unsupportedAttestationFormat(let format) {
                #expect(format == vector.format && !Self.supportedFormats.contains(format), "\(vector.name)")
            } catch {
                Issue.record("\(vector.name): \(error)")
            }
        }
        // none ×4, packed self, packed x5c with ES256, RS256 and Ed25519, fido-u2f.
        #expect(registered == 9)
        #expect(authenticated == 9)
    }

    @Test("§16 with the spec's CA as the only trust anchor: x5c chains are trusted, self and none are refused when attestation is required")
    func trustedChains() async throws {
        let root = try Certificate(derEncoded: try WebAuthnFixtures.attestationRoot())
        for vector in try WebAuthnFixtures.vectors()
        where Self.supportedFormats.contains(vector.format) && Self.supportedAlgorithms.contains(vector.coseAlg) {
            let verifier = WebAuthnVerifier(policy: Self.policy(vector, roots: [root]))
            do {
                let result = try await verifier.verifyRegistration(
                    clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge, time: Self.pinned
                )
                #expect(result.attestationType == .certificate(trusted: true), "\(vector.name)")
            } catch .untrustedAttestation {
                #expect(vector.format == "none" || vector.name.contains("Self"), "\(vector.name) refused")
            } catch {
                Issue.record("\(vector.name): \(error)")
            }
        }
    }

    @Test("§8.6: the AAGUID a fido-u2f registration names is not signed, so an allow-list of models is not passed by naming one; a packed x5c registration's AAGUID is signed and passes")
    func fidoU2FAAGUIDIsNotAttested() async throws {
        let root = try Certificate(derEncoded: try WebAuthnFixtures.attestationRoot())
        let vectors = try WebAuthnFixtures.vectors()
        let u2f = try #require(vectors.first { $0.format == "fido-u2f" })
        let packed = try #require(vectors.first { $0.format == "packed" && $0.coseAlg == -7 && !$0.name.contains("Self") })
        #expect(u2f.aaguid != [UInt8](repeating: 0, count: 16), "the vector names a model")
        for (vector, admitted) in [(u2f, false), (packed, true)] {
            var policy = Self.policy(vector, roots: [root])
            policy.allowedAAGUIDs = [vector.aaguid]
            do {
                let result = try await WebAuthnVerifier(policy: policy).verifyRegistration(
                    clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge, time: Self.pinned
                )
                #expect(admitted && result.aaguid == vector.aaguid && result.attestationType == .certificate(trusted: true), "\(vector.name)")
            } catch {
                #expect(!admitted && error == .authenticatorNotAllowed("this relying party does not accept this authenticator model"), "\(vector.name): \(error)")
            }
        }
        // Allowing U2F authenticators (the all-zero AAGUID) admits it, attested by its trusted certificate.
        var policy = Self.policy(u2f, roots: [root])
        policy.allowedAAGUIDs = [[UInt8](repeating: 0, count: 16)]
        let result = try await WebAuthnVerifier(policy: policy).verifyRegistration(
            clientDataJSON: u2f.clientDataJSON, attestationObject: u2f.attestationObject, challenge: u2f.challenge, time: Self.pinned
        )
        #expect(result.attestationType == .certificate(trusted: true) && result.aaguid == [UInt8](repeating: 0, count: 16))
    }

    @Test("§16: tpm, android-key and apple are accepted as none when the policy says so")
    func unverifiedFormatsAsNone() async throws {
        for vector in try WebAuthnFixtures.vectors() where ["tpm", "android-key", "apple"].contains(vector.format) {
            let result = try await WebAuthnVerifier(policy: Self.policy(vector, asNone: true)).verifyRegistration(
                clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge, time: Self.pinned
            )
            #expect(result.attestationType == .none)
            #expect(result.attestationFormat == vector.format)
        }
    }

    @Test("§16 registration vectors fail when one thing differs: challenge, origin, RP ID, a flipped authData or clientDataJSON byte")
    func negatives() async throws {
        let vector = try #require(try WebAuthnFixtures.vectors().first { $0.format == "packed" && $0.coseAlg == -7 && !$0.name.contains("Self") })
        let verifier = WebAuthnVerifier(policy: Self.policy(vector))
        func refusal(_ clientData: [UInt8], _ object: [UInt8], _ challenge: [UInt8], _ policy: RelyingPartyPolicy? = nil) async -> WebAuthnError? {
            do {
                _ = try await (policy.map(WebAuthnVerifier.init) ?? verifier).verifyRegistration(
                    clientDataJSON: clientData, attestationObject: object, challenge: challenge, time: Self.pinned
                )
                return nil
            } catch { return error }
        }
        var challenge = vector.challenge
        challenge[0] ^= 1
        #expect(await refusal(vector.clientDataJSON, vector.attestationObject, challenge) == .wrongChallenge)
        var other = Self.policy(vector)
        other.origins = ["https://example.net"]
        #expect(await refusal(vector.clientDataJSON, vector.attestationObject, vector.challenge, other) == .wrongOrigin("https://example.org"))
        other = Self.policy(vector)
        other.rpId = "example.net"
        #expect(await refusal(vector.clientDataJSON, vector.attestationObject, vector.challenge, other) == .wrongRelyingParty)
        other = Self.policy(vector)
        other.algorithms = [.edDSA]
        #expect(await refusal(vector.clientDataJSON, vector.attestationObject, vector.challenge, other) == .unsupportedAlgorithm(-7))
        var clientData = vector.clientDataJSON
        let last = clientData.count - 3  // inside the last member's text, before `"}`
        clientData[last] = clientData[last] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        let tampered = await refusal(clientData, vector.attestationObject, vector.challenge)
        #expect(tampered == .invalidAttestation("the attestation signature does not verify"), "\(String(describing: tampered))")
    }

    @Test("§16 authentication vector fails when one thing differs: tampered authData, replayed challenge, counter regression, wrong user, credential not allowed")
    func assertionNegatives() async throws {
        let vector = try #require(try WebAuthnFixtures.vectors().first { $0.format == "none" && $0.name.contains("No Attestation") })
        let assertion = try #require(vector.assertion)
        let verifier = WebAuthnVerifier(policy: Self.policy(vector))
        let registered = try await verifier.verifyRegistration(
            clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge, time: Self.pinned
        )
        let record = CredentialRecord(credentialId: vector.credentialId, publicKeyBytes: registered.publicKeyBytes, signCount: registered.signCount, userHandle: [7])
        func refusal(
            authData: [UInt8]? = nil, challenge: [UInt8]? = nil, record: CredentialRecord? = nil, userHandle: [UInt8]? = nil, allow: [[UInt8]]?? = .some(nil)
        ) -> WebAuthnError? {
            do {
                _ = try verifier.verifyAssertion(
                    credentialId: vector.credentialId, clientDataJSON: assertion.clientDataJSON, authenticatorData: authData ?? assertion.authenticatorData,
                    signature: assertion.signature, userHandle: userHandle ?? [7], challenge: challenge ?? assertion.challenge,
                    credential: record ?? CredentialRecord(credentialId: vector.credentialId, publicKeyBytes: registered.publicKeyBytes, signCount: registered.signCount, userHandle: [7]),
                    allowCredentials: allow ?? nil
                )
                return nil
            } catch { return error }
        }
        #expect(refusal() == nil)
        var authData = assertion.authenticatorData
        authData[36] ^= 0x01  // the counter's last byte
        #expect(refusal(authData: authData) == .invalidSignature)
        #expect(refusal(challenge: vector.challenge) == .wrongChallenge)
        let counter = assertion.authenticatorData[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var ahead = record
        ahead.signCount = counter + 5  // the store saw a later counter than the authenticator sends now
        #expect(refusal(record: ahead) == .counterRegression(stored: counter + 5, received: counter))
        #expect(refusal(userHandle: [8]) == .wrongUser)
        #expect(refusal(allow: .some([[1, 2, 3]])) == .credentialNotAllowed)
    }

    @Test("a credential ID of 1024 bytes is refused; 1023 (the §16 long-ID vector) is accepted")
    func credentialIdLength() throws {
        var bytes = [UInt8](repeating: 0, count: 32) + [0x45, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0x04, 0x00]
        bytes += [UInt8](repeating: 0xab, count: 1024)
        #expect(throws: WebAuthnError.credentialIdTooLong(1024)) { try AuthenticatorData(bytes) }
        let long = try #require(try WebAuthnFixtures.vectors().first { $0.name.contains("long credential ID") })
        #expect(long.credentialId.count == 1023)
    }
}
