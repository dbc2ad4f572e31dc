import Foundation
import Testing
@testable import TesseraWebAuthn

/// §7.1 and §7.2 under a mutation fuzzer, as an attacker would send a registration or an assertion: every mutation of
/// the §16 vectors ends in a ``WebAuthnError``, or in the original's result as far as a signature covers it (all of it
/// for `packed` and for assertions, the credential and its key for `fido-u2f`, nothing for `none`). Never a crash or a
/// hang; a signed registration or an assertion is never accepted with another key or counter.
struct WebAuthnFuzzTests {
    /// The vectors of the formats and algorithms Tessera verifies, and what each registers as unedited.
    private static func registered() async throws -> [(vector: WebAuthnFixtures.Vector, verifier: WebAuthnVerifier, result: VerifiedRegistration)] {
        var registered: [(WebAuthnFixtures.Vector, WebAuthnVerifier, VerifiedRegistration)] = []
        for vector in try WebAuthnFixtures.vectors()
        where SpecTestVectorTests.supportedFormats.contains(vector.format) && SpecTestVectorTests.supportedAlgorithms.contains(vector.coseAlg) {
            let verifier = WebAuthnVerifier(policy: SpecTestVectorTests.policy(vector))
            let result = try await verifier.verifyRegistration(
                clientDataJSON: vector.clientDataJSON, attestationObject: vector.attestationObject, challenge: vector.challenge,
                time: SpecTestVectorTests.pinned
            )
            registered.append((vector, verifier, result))
        }
        return registered
    }

    @Test("fuzz: 20 000 mutations of the §16 registrations (attestation object or client data) end in a WebAuthnError or in the original's credential as far as it is signed")
    func registrations() async throws {
        let registered = try await Self.registered()
        #expect(registered.count == 9)
        var random = ByteMutations.SplitMix(state: 0x5EC7_1601)
        var refused: [String: Int] = [:], accepted = 0
        for round in 0..<20000 {
            let (vector, verifier, original) = registered[round % registered.count]
            var clientData = vector.clientDataJSON, object = vector.attestationObject
            if round % 4 == 3 {
                clientData = ByteMutations.mutate(clientData, replacingOnly: true, using: &random)
            } else {
                object = ByteMutations.mutate(object, replacingOnly: round % 2 == 1, using: &random)
            }
            do {
                let result = try await verifier.verifyRegistration(
                    clientDataJSON: clientData, attestationObject: object, challenge: vector.challenge, time: SpecTestVectorTests.pinned
                )
                accepted += 1
                switch vector.format {
                case "packed":
                    // The signature covers the whole authenticator data and the client data.
                    #expect(result == original, "round \(round), \(vector.name): accepted with another result")
                case "fido-u2f":
                    // §8.6 signs the RP ID hash, the client data hash, the credential ID and its key, not the flags, the
                    // counter or the AAGUID.
                    #expect(
                        result.credentialId == original.credentialId && result.publicKeyBytes == original.publicKeyBytes,
                        "round \(round), \(vector.name): accepted with another credential"
                    )
                default:
                    break  // `none`: nothing is signed
                }
            } catch {
                refused[error.code, default: 0] += 1
            }
        }
        #expect(accepted + refused.values.reduce(0, +) == 20000)
        for kind in ["malformed", "invalid_attestation", "invalid_public_key", "wrong_rp_id", "wrong_origin"] {
            #expect(refused[kind, default: 0] > 0, "\(kind): refused by \(refused)")
        }
    }

    @Test("fuzz: 20 000 mutations of the §16 assertions (authenticator data, client data or signature) end in a WebAuthnError or in the original's result")
    func assertions() async throws {
        let registered = try await Self.registered().compactMap { item in item.vector.assertion.map { (item.vector, item.verifier, item.result, $0) } }
        #expect(registered.count == 9)
        var random = ByteMutations.SplitMix(state: 0x5EC7_1602)
        var refused: [String: Int] = [:], accepted = 0
        for round in 0..<20000 {
            let (vector, verifier, registration, assertion) = registered[round % registered.count]
            let record = CredentialRecord(
                credentialId: registration.credentialId, publicKeyBytes: registration.publicKeyBytes, signCount: registration.signCount, userHandle: [1]
            )
            var authenticatorData = assertion.authenticatorData, clientData = assertion.clientDataJSON, signature = assertion.signature
            let replacingOnly = round % 2 == 1
            switch round % 3 {
            case 0: authenticatorData = ByteMutations.mutate(authenticatorData, replacingOnly: replacingOnly, using: &random)
            case 1: clientData = ByteMutations.mutate(clientData, replacingOnly: replacingOnly, using: &random)
            default: signature = ByteMutations.mutate(signature, replacingOnly: replacingOnly, using: &random)
            }
            let verify = { (authenticatorData: [UInt8], clientData: [UInt8], signature: [UInt8]) throws(WebAuthnError) in
                try verifier.verifyAssertion(
                    credentialId: vector.credentialId, clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature,
                    userHandle: nil, challenge: assertion.challenge, credential: record, allowCredentials: [vector.credentialId]
                )
            }
            do {
                let result = try verify(authenticatorData, clientData, signature)
                accepted += 1
                #expect(
                    result == (try verify(assertion.authenticatorData, assertion.clientDataJSON, assertion.signature)),
                    "round \(round), \(vector.name): accepted with another result"
                )
            } catch {
                refused[error.code, default: 0] += 1
            }
        }
        #expect(accepted + refused.values.reduce(0, +) == 20000)
        for kind in ["malformed", "invalid_signature", "wrong_rp_id"] {
            #expect(refused[kind, default: 0] > 0, "\(kind): refused by \(refused)")
        }
    }
}
