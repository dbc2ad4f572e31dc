import Crypto
import Foundation
import Synchronization
import TesseraWebAuthn
import X509

/// App Attest inputs for the tests: cases minted at test time by Server/Tests/Fixtures/appattest/mint.py
/// (a test root CA, attestations and assertions, each negative case with one thing wrong), and the real
/// attestations and assertions of Server/Tests/Fixtures/appattest/devicecheck-appattest-samples.json.
package enum AppAttestFixtures {
    /// Server/Tests/Fixtures/appattest.
    package static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/appattest")

    /// One case of mint.py (hex byte strings as it prints them).
    package struct Case: Decodable, Sendable {
        package var name: String
        package var kind: String
        package var environment: String
        package var teamId: String
        package var bundleId: String
        package var attestationObject: String?
        package var keyId: String?
        package var challenge: String?
        package var expectedPublicKey: String?
        /// Attestation cases: the device key's private scalar (32 bytes), to sign further assertions with it.
        package var privateKey: String?
        package var assertion: String?
        package var clientData: String?
        package var publicKey: String?
        package var storedCounter: UInt32?
        package var expectedCounter: UInt32?
        /// Bound cases (made at the enrolment of a Tessera device key): that device key's private scalar (32 bytes).
        package var tesseraDeviceKey: String?
        /// Bound cases: that device key's public key, X9.63 (its challenge is bound to it, or to another key's).
        package var tesseraDevicePublicKey: String?
        /// Bound cases made with the challenge derived from the secret an enrolment uses up: that secret (`tdt_`, a
        /// dispose token, or `tss_`, a session token, and base64url of 32 bytes, as the server makes them).
        package var enrolmentSecret: String?

        /// Bound cases: the Tessera device key.
        package func deviceKey() throws -> P256.Signing.PrivateKey {
            try P256.Signing.PrivateKey(rawRepresentation: AppAttestFixtures.hex(tesseraDeviceKey))
        }

        /// The client's settings the case is verified under.
        package var app: AppAttestApp {
            AppAttestApp(teamID: teamId, bundleID: bundleId, environment: AppAttestEnvironment(rawValue: environment) ?? .production)
        }
    }

    /// What one run of mint.py printed.
    package struct Minted: Decodable, Sendable {
        package var time: Double
        package var root: String
        package var otherRoot: String
        /// The Tessera device key (scalar) every case's challenge is bound to, unless the case is a bound one of its own.
        package var fixtureDeviceKey: String
        package var cases: [Case]

        /// The Tessera device key the cases' challenges are bound to: the server tests' device signs up with it.
        package func fixtureKey() throws -> P256.Signing.PrivateKey {
            try P256.Signing.PrivateKey(rawRepresentation: AppAttestFixtures.hex(fixtureDeviceKey))
        }

        /// The minted root, to inject into the verifier.
        package func rootCertificate() throws -> Certificate { try Certificate(derEncoded: hex(root)) }
        /// The minted root as PEM, for the server's `appAttest.roots` file.
        package var rootPEM: String {
            let base64 = Data(hex(root)).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }
        /// The time the cases are verified at.
        package var date: Date { Date(timeIntervalSince1970: time) }
        /// The case named `name`.
        package func named(_ name: String) throws -> Case {
            guard let found = cases.first(where: { $0.name == name }) else { throw Missing(name: name) }
            return found
        }
    }

    /// No case of that name.
    package struct Missing: Error, CustomStringConvertible {
        package var name: String
        package var description: String { "mint.py printed no case named \(name)" }
    }

    /// mint.py failed.
    package struct ScriptFailed: Error, CustomStringConvertible {
        package var description: String
    }

    /// The bytes of a lowercase hex string (nil: none).
    package static func hex(_ text: String?) -> [UInt8] {
        let text = Array((text ?? "").utf8)
        return stride(from: 0, to: text.count - 1, by: 2).map { UInt8(String(decoding: text[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0 }
    }

    /// An assertion of the device key `privateKey` (its 32-byte scalar) for `app`, with `counter`, over client data
    /// `{"action": "transfer", "challenge": challenge}`, shaped as `generateAssertion` returns it: the CBOR map
    /// {"signature": DER, "authenticatorData": rpIdHash ‖ flags ‖ counter}.
    package static func assertion(
        privateKey: [UInt8], app: AppAttestApp, challenge: String, counter: UInt32
    ) throws -> (assertion: [UInt8], clientData: [UInt8]) {
        let key = try P256.Signing.PrivateKey(rawRepresentation: privateKey)
        let clientData = Array(try JSONSerialization.data(withJSONObject: ["challenge": challenge, "action": "transfer"], options: [.sortedKeys]))
        let authenticatorData = app.rpIdHash + [0x40] + withUnsafeBytes(of: counter.bigEndian, Array.init)
        let nonce = Data(SHA256.hash(data: authenticatorData + Array(SHA256.hash(data: clientData))))
        let signature = Array(try key.signature(for: nonce).derRepresentation)
        // Both byte strings are shorter than 256: one length byte each (0x58).
        let cbor: [UInt8] = [0xA2, 0x69] + Array("signature".utf8) + [0x58, UInt8(signature.count)] + signature
            + [0x71] + Array("authenticatorData".utf8) + [0x58, UInt8(authenticatorData.count)] + authenticatorData
        return (cbor, clientData)
    }

    private static let cache = Mutex<Task<Minted, any Error>?>(nil)

    /// The cases of one mint.py run, shared by every test of the process (the first caller starts it).
    /// Fails naming what is missing when `TESSERA_TEST_PYTHON` lacks `cryptography` or `cbor2`.
    package static func minted() async throws -> Minted {
        let python = try TestRequirements.python(importing: ["cbor2", "cryptography"], for: "minting App Attest cases (mint.py)")
        let task = cache.withLock { cached in
            if let cached { return cached }
            let started = Task { try await mint(python) }
            cached = started
            return started
        }
        return try await task.value
    }

    private static func mint(_ python: String) async throws -> Minted {
        let run = try await ChildProcess.run(python, [directory.appendingPathComponent("mint.py").path])
        guard run.status == 0, let json = run.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
            throw ScriptFailed(description: "mint.py exited \(run.status): \(run.output)")
        }
        return try JSONDecoder().decode(Minted.self, from: Data(json.utf8))
    }

    /// One real sample: an attestation and the first assertion of the same key.
    package struct Sample: Decodable, Sendable {
        package var name: String
        package var teamId: String
        package var bundleId: String
        package var environment: String
        package var attestationTime: String
        package var challenge: String
        package var keyId: String
        package var attestationObject: String
        package var assertion: String
        package var assertionClientData: String
        package var assertionCounter: UInt32
    }

    private struct Samples: Decodable {
        var source: String
        var samples: [Sample]
    }

    /// The real samples.
    package static func samples() throws -> [Sample] {
        let data = try Data(contentsOf: directory.appendingPathComponent("devicecheck-appattest-samples.json"))
        return try JSONDecoder().decode(Samples.self, from: data).samples
    }
}
