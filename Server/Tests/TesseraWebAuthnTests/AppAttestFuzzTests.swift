import Foundation
import Testing
import TesseraTestSupport
@testable import TesseraWebAuthn

/// App Attest's checks under a mutation fuzzer, as an attacker would send them: every mutation of a valid attestation
/// object or assertion (mint.py's, under the test root) ends in an ``AppAttestError``, or, where the edit fell on bytes
/// that no check covers (the receipt, which Apple signs and Tessera only stores, or a byte replaced by itself), in the
/// original's credential or counter. Never a crash, a hang, another key or another counter.
struct AppAttestFuzzTests {
    @Test("fuzz: 3 000 mutations of valid attestation objects end in an AppAttestError or in the original's credential")
    func attestations() async throws {
        let minted = try await AppAttestFixtures.minted()
        let root = try minted.rootCertificate(), cache = AppAttestAnchorCache()
        let valid = try ["valid development attestation", "valid production attestation"].map { try minted.named($0) }
        var random = ByteMutations.SplitMix(state: 0xA77E_5701)
        var refused: [String: Int] = [:], accepted = 0
        for round in 0..<3000 {
            let item = valid[round % valid.count]
            // Every other round, bytes replaced only: the structure stays, so the edits reach the checks past the parsing.
            let input = ByteMutations.mutate(AppAttestFixtures.hex(item.attestationObject), replacingOnly: round % 2 == 1, using: &random)
            let verifier = AppAttestVerifier(app: item.app, trustedRoots: [root], anchorCache: cache)
            do {
                let credential = try await verifier.verifyAttestation(
                    input, keyId: AppAttestFixtures.hex(item.keyId), challenge: AppAttestFixtures.hex(item.challenge), time: minted.date
                )
                accepted += 1
                #expect(
                    credential.keyId == AppAttestFixtures.hex(item.keyId) && credential.publicKey == AppAttestFixtures.hex(item.expectedPublicKey)
                        && credential.counter == 0 && credential.environment == item.app.environment,
                    "round \(round): accepted with another credential"
                )
            } catch {
                refused[error.code, default: 0] += 1
            }
        }
        #expect(accepted + refused.values.reduce(0, +) == 3000)
        // The edits reach past the parsing: the format, the chain and the nonce each refuse some (an edit of the
        // authenticator data breaks the nonce, which is checked before its other fields).
        for code in ["malformed", "wrong_chain", "nonce_mismatch", "unsupported_format"] {
            #expect(refused[code, default: 0] > 0, "\(code): refused by \(refused)")
        }
    }

    @Test("fuzz: 3 000 mutations of a valid assertion end in an AppAttestError or in the original's counter")
    func assertions() async throws {
        let minted = try await AppAttestFixtures.minted()
        let item = try minted.named("valid later assertion (counter 7 after 4)")
        let verifier = AppAttestVerifier(app: item.app, trustedRoots: [try minted.rootCertificate()])
        var random = ByteMutations.SplitMix(state: 0xA55E_5701)
        var refused: [String: Int] = [:], accepted = 0
        for round in 0..<3000 {
            let input = ByteMutations.mutate(AppAttestFixtures.hex(item.assertion), replacingOnly: round % 2 == 1, using: &random)
            do {
                let counter = try verifier.verifyAssertion(
                    input, clientData: AppAttestFixtures.hex(item.clientData), publicKey: AppAttestFixtures.hex(item.publicKey),
                    storedCounter: item.storedCounter ?? 0
                )
                accepted += 1
                #expect(counter == item.expectedCounter, "round \(round): accepted with counter \(counter)")
            } catch {
                refused[error.code, default: 0] += 1
            }
        }
        #expect(accepted + refused.values.reduce(0, +) == 3000)
        #expect(refused["malformed", default: 0] > 0 && refused["bad_signature", default: 0] > 0, "refused by: \(refused)")
    }
}
