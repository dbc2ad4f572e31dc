import Foundation
import Synchronization
import TesseraTestSupport
import TesseraWebAuthn
import X509

/// App Attest inputs for the tests: cases minted at test time by Server/Tests/Fixtures/appattest/mint.py
/// (a test root CA, attestations and assertions, each negative case with one thing wrong), and the real
/// attestations and assertions of Server/Tests/Fixtures/appattest/devicecheck-appattest-samples.json.
enum AppAttestFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/appattest")

    /// One case of mint.py (hex byte strings as it prints them).
    struct Case: Decodable, Sendable {
        var name: String
        var kind: String
        var environment: String
        var teamId: String
        var bundleId: String
        var attestationObject: String?
        var keyId: String?
        var challenge: String?
        var expectedPublicKey: String?
        var assertion: String?
        var clientData: String?
        var publicKey: String?
        var storedCounter: UInt32?
        var expectedCounter: UInt32?

        /// The client's settings the case is verified under.
        var app: AppAttestApp {
            AppAttestApp(teamID: teamId, bundleID: bundleId, environment: AppAttestEnvironment(rawValue: environment) ?? .production)
        }
    }

    /// What one run of mint.py printed.
    struct Minted: Decodable, Sendable {
        var time: Double
        var root: String
        var otherRoot: String
        var cases: [Case]

        /// The minted root, to inject into the verifier.
        func rootCertificate() throws -> Certificate { try Certificate(derEncoded: hex(root)) }
        /// The time the cases are verified at.
        var date: Date { Date(timeIntervalSince1970: time) }
        /// The case named `name`.
        func named(_ name: String) throws -> Case {
            guard let found = cases.first(where: { $0.name == name }) else { throw Missing(name: name) }
            return found
        }
    }

    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "mint.py printed no case named \(name)" }
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        var description: String
    }

    static func hex(_ text: String?) -> [UInt8] { CBORDecoderTests.hex(text ?? "") }

    private static let cache = Mutex<Task<Minted, any Error>?>(nil)

    /// The cases of one mint.py run, shared by every test of the process (the first caller starts it).
    /// Fails naming what is missing when `TESSERA_TEST_PYTHON` lacks `cryptography` or `cbor2`.
    static func minted() async throws -> Minted {
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
    struct Sample: Decodable, Sendable {
        var name: String
        var teamId: String
        var bundleId: String
        var environment: String
        var attestationTime: String
        var challenge: String
        var keyId: String
        var attestationObject: String
        var assertion: String
        var assertionClientData: String
        var assertionCounter: UInt32
    }

    private struct Samples: Decodable {
        var source: String
        var samples: [Sample]
    }

    /// The real samples.
    static func samples() throws -> [Sample] {
        let data = try Data(contentsOf: directory.appendingPathComponent("devicecheck-appattest-samples.json"))
        return try JSONDecoder().decode(Samples.self, from: data).samples
    }
}
