import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
import X509
@testable import TesseraWebAuthn

/// App Attest verification (Apple's "Validating apps that connect to your server") on attestations and
/// assertions minted at test time under a test root (Server/Tests/Fixtures/appattest/mint.py), injected as the
/// verifier's only trusted root: the valid ones pass, and each broken one is refused with its own code.
struct AppAttestMintedTests {
    /// Each attestation case of mint.py and the code it must be refused with (nil: it must pass).
    static let attestations: [(String, String?)] = [
        ("valid development attestation", nil),
        ("valid production attestation", nil),
        ("wrong chain: credential certificate from another CA", "wrong_chain"),
        ("wrong chain: intermediate left out", "wrong_chain"),
        ("wrong chain: another CA's intermediate sent with our leaf", "wrong_chain"),
        ("expired credential certificate", "certificate_expired"),
        ("credential certificate not yet valid", "certificate_expired"),
        ("nonce mismatch: nonce of another challenge", "nonce_mismatch"),
        ("no nonce extension", "malformed"),
        ("key ID mismatch: another key's ID sent", "key_id_mismatch"),
        ("credential ID is not the key ID", "credential_id_mismatch"),
        ("rpIdHash of another team", "rp_id_mismatch"),
        ("rpIdHash of another bundle", "rp_id_mismatch"),
        ("counter not 0", "counter_not_zero"),
        ("development AAGUID under a production client", "aaguid_mismatch"),
        ("production AAGUID under a development client", "aaguid_mismatch"),
        ("fmt is not apple-appattest", "unsupported_format"),
        ("not CBOR", "malformed"),
        // Bound cases (made at an enrolment): the verifier passes all but the wrong chain; the binding of the
        // challenge to the device key is a separate check (AppAttestDeviceBinding, tested below).
        ("bound development attestation", nil),
        ("bound development attestation, second device", nil),
        ("bound production attestation", nil),
        ("bound to another device key", nil),
        ("bound, wrong chain", "wrong_chain"),
        ("bound to a dispose token", nil),
        ("bound to a session token", nil),
    ]

    /// Each assertion case of mint.py and the code it must be refused with (nil: it must pass).
    static let assertions: [(String, String?)] = [
        ("valid first assertion (counter 1 after 0)", nil),
        ("valid later assertion (counter 7 after 4)", nil),
        ("replayed assertion: counter not grown", "counter_not_grown"),
        ("counter went back", "counter_not_grown"),
        ("assertion from another device's key", "bad_signature"),
        ("signature over other client data", "bad_signature"),
        ("signature not DER (raw r and s)", "bad_signature"),
        ("assertion rpIdHash of another bundle", "rp_id_mismatch"),
        ("assertion without a signature", "malformed"),
    ]

    @Test("mint.py mints exactly the cases listed here")
    func everyCaseListed() async throws {
        let minted = try await AppAttestFixtures.minted()
        let listed = Set((Self.attestations + Self.assertions).map(\.0))
        #expect(Set(minted.cases.map(\.name)) == listed)
        #expect(minted.cases.count == listed.count)
    }

    @Test("a bound case's challenge is bound to its device key (AppAttestDeviceBinding), but not to another key; another key's is not")
    func binding() async throws {
        let minted = try await AppAttestFixtures.minted()
        for name in ["bound development attestation", "bound production attestation", "bound, wrong chain"] {
            let item = try minted.named(name)
            let challenge = AppAttestFixtures.hex(item.challenge), key = AppAttestFixtures.hex(item.tesseraDevicePublicKey)
            #expect(AppAttestDeviceBinding.binds(challenge, deviceKey: key), "\(name)")
            #expect(!AppAttestDeviceBinding.binds(challenge, deviceKey: AppAttestFixtures.hex(minted.cases[0].expectedPublicKey)), "\(name)")
            #expect(AppAttestDeviceBinding.challenge(random: Array(challenge.prefix(16)), deviceKey: key) == challenge)
        }
        let other = try minted.named("bound to another device key")
        #expect(!AppAttestDeviceBinding.binds(AppAttestFixtures.hex(other.challenge), deviceKey: AppAttestFixtures.hex(other.tesseraDevicePublicKey)))
        #expect(!AppAttestDeviceBinding.binds(Array(AppAttestFixtures.hex(other.challenge).prefix(31)), deviceKey: AppAttestFixtures.hex(other.tesseraDevicePublicKey)))
    }

    @Test("an enrolment challenge derived from a dispose token is mint.py's (an independent derivation) and bound to the device key")
    func disposeTokenChallenge() async throws {
        let minted = try await AppAttestFixtures.minted()
        let item = try minted.named("bound to a dispose token")
        let token = try #require(item.enrolmentSecret), key = AppAttestFixtures.hex(item.tesseraDevicePublicKey)
        let derived = AppAttestDeviceBinding.enrolmentChallenge(secret: token, deviceKey: key)
        #expect(derived == AppAttestFixtures.hex(item.challenge))
        #expect(AppAttestDeviceBinding.binds(derived, deviceKey: key))
        #expect(AppAttestDeviceBinding.enrolmentChallenge(secret: token + "x", deviceKey: key) != derived)
        let otherKey = AppAttestFixtures.hex(try minted.named("bound development attestation").tesseraDevicePublicKey)
        #expect(!AppAttestDeviceBinding.binds(AppAttestDeviceBinding.enrolmentChallenge(secret: token, deviceKey: otherKey), deviceKey: key))
    }

    @Test("with an anchor cache: the second attestation through a known intermediate passes; another CA's chains are still refused")
    func anchorCache() async throws {
        let minted = try await AppAttestFixtures.minted()
        let cache = AppAttestAnchorCache()
        for (name, expected) in Self.attestations where expected == nil || expected == "wrong_chain" {
            for _ in 0..<2 {
                let item = try minted.named(name)
                let verifier = AppAttestVerifier(app: item.app, trustedRoots: [try minted.rootCertificate()], anchorCache: cache)
                do {
                    _ = try await verifier.verifyAttestation(
                        AppAttestFixtures.hex(item.attestationObject), keyId: AppAttestFixtures.hex(item.keyId),
                        challenge: AppAttestFixtures.hex(item.challenge), time: minted.date
                    )
                    #expect(expected == nil, "\(name): accepted with the cache")
                } catch {
                    #expect(error.code == expected, "\(name): \(error)")
                }
            }
        }
        // Known now, but not valid 20 years on: the intermediate's own validity is still checked.
        let valid = try minted.named("valid development attestation")
        let later = AppAttestVerifier(app: valid.app, trustedRoots: [try minted.rootCertificate()], anchorCache: cache)
        await #expect(throws: AppAttestError.self) {
            _ = try await later.verifyAttestation(
                AppAttestFixtures.hex(valid.attestationObject), keyId: AppAttestFixtures.hex(valid.keyId),
                challenge: AppAttestFixtures.hex(valid.challenge), time: minted.date.addingTimeInterval(20 * 365 * 86400)
            )
        }
    }

    @Test("attestation", arguments: attestations)
    func attestation(_ name: String, _ expected: String?) async throws {
        let minted = try await AppAttestFixtures.minted()
        let item = try minted.named(name)
        #expect(item.kind == "attestation")
        let verifier = AppAttestVerifier(app: item.app, trustedRoots: [try minted.rootCertificate()])
        do {
            let credential = try await verifier.verifyAttestation(
                AppAttestFixtures.hex(item.attestationObject), keyId: AppAttestFixtures.hex(item.keyId),
                challenge: AppAttestFixtures.hex(item.challenge), time: minted.date
            )
            #expect(expected == nil, "\(name): accepted, expected \(expected ?? "")")
            #expect(credential.keyId == AppAttestFixtures.hex(item.keyId))
            #expect(credential.publicKey == AppAttestFixtures.hex(item.expectedPublicKey))
            #expect(credential.environment == item.app.environment)
            #expect(credential.counter == 0)
            #expect(String(decoding: credential.receipt.prefix(13), as: UTF8.self) == "test receipt ")
        } catch {
            #expect(error.code == expected, "\(name): \(error)")
        }
    }

    @Test("assertion", arguments: assertions)
    func assertion(_ name: String, _ expected: String?) async throws {
        let minted = try await AppAttestFixtures.minted()
        let item = try minted.named(name)
        #expect(item.kind == "assertion")
        let verifier = AppAttestVerifier(app: item.app, trustedRoots: [try minted.rootCertificate()])
        do {
            let counter = try verifier.verifyAssertion(
                AppAttestFixtures.hex(item.assertion), clientData: AppAttestFixtures.hex(item.clientData),
                publicKey: AppAttestFixtures.hex(item.publicKey), storedCounter: item.storedCounter ?? 0
            )
            #expect(expected == nil, "\(name): accepted, expected \(expected ?? "")")
            #expect(counter == item.expectedCounter)
        } catch {
            #expect(error.code == expected, "\(name): \(error)")
        }
    }

    @Test("the valid attestation, then an assertion with the key it returned and the counter it starts at")
    func attestationThenAssertion() async throws {
        let minted = try await AppAttestFixtures.minted()
        let attestation = try minted.named("valid development attestation")
        let verifier = AppAttestVerifier(app: attestation.app, trustedRoots: [try minted.rootCertificate()])
        let credential = try await verifier.verifyAttestation(
            AppAttestFixtures.hex(attestation.attestationObject), keyId: AppAttestFixtures.hex(attestation.keyId),
            challenge: AppAttestFixtures.hex(attestation.challenge), time: minted.date
        )
        let first = try minted.named("valid first assertion (counter 1 after 0)")
        let counter = try verifier.verifyAssertion(
            AppAttestFixtures.hex(first.assertion), clientData: AppAttestFixtures.hex(first.clientData),
            publicKey: credential.publicKey, storedCounter: credential.counter
        )
        #expect(counter == 1)
        // The same assertion again, after its counter was stored: a replay.
        #expect(throws: AppAttestError.counterNotGrown(stored: 1, received: 1)) {
            try verifier.verifyAssertion(
                AppAttestFixtures.hex(first.assertion), clientData: AppAttestFixtures.hex(first.clientData),
                publicKey: credential.publicKey, storedCounter: counter
            )
        }
    }

    @Test("the pinned Apple root is the default: a chain of the test root is then refused as wrong_chain, and with another test root too")
    func testRootMustBeInjected() async throws {
        let minted = try await AppAttestFixtures.minted()
        let item = try minted.named("valid development attestation")
        let other = try Certificate(derEncoded: AppAttestFixtures.hex(minted.otherRoot))
        for verifier in [try AppAttestVerifier(app: item.app), AppAttestVerifier(app: item.app, trustedRoots: [other])] {
            await #expect(throws: AppAttestError.wrongChain("no valid path from the credential certificate to a trusted root")) {
                try await verifier.verifyAttestation(
                    AppAttestFixtures.hex(item.attestationObject), keyId: AppAttestFixtures.hex(item.keyId),
                    challenge: AppAttestFixtures.hex(item.challenge), time: minted.date
                )
            }
        }
    }
}
