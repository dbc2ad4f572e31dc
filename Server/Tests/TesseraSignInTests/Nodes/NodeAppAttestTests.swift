import Crypto
import Foundation
import Logging
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
import TesseraWebAuthn
import X509
@testable import TesseraNode
@testable import TesseraServer

/// A verifier node's own check of a device's App Attest evidence (issue 41): with the cases mint.py mints at test
/// time and its root injected, on the node's clock pinned to the cases' time.
@Suite("Verifier node: App Attest")
struct NodeAppAttestTests {
    /// A node trusting `roots` (Apple's root when nil) whose clock reads `time` (the cases' time when nil).
    static func node(roots: [Certificate]?, at time: Date? = nil) async throws -> NodeService {
        let minted = try await AppAttestFixtures.minted()
        let millis = Int64(((time ?? minted.date).timeIntervalSince1970 * 1000).rounded())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-appattest-\(UUID().uuidString)").path
        return try await NodeService.open(
            directory: directory, inMemory: true, clock: WallClock { millis }, appAttestRoots: roots, logger: Logger(label: "node-test")
        )
    }

    /// A node trusting the minted root.
    static func mintedNode(at time: Date? = nil) async throws -> NodeService {
        try await node(roots: [try await AppAttestFixtures.minted().rootCertificate()], at: time)
    }

    /// The evidence of a minted bound case, as the server sends it (base64, the challenge base64url).
    static func evidence(_ minted: AppAttestFixtures.Case) -> NodeAppAttestEvidence {
        NodeAppAttestEvidence(
            attestationObject: Data(AppAttestFixtures.hex(minted.attestationObject)).base64EncodedString(),
            keyId: Data(AppAttestFixtures.hex(minted.keyId)).base64EncodedString(),
            challenge: Base64URL.encode(AppAttestFixtures.hex(minted.challenge)),
            teamId: minted.teamId, bundleId: minted.bundleId, environment: minted.environment
        )
    }

    /// One user-verification key for every record (a record re-sent with another would be a key conflict).
    static let userVerificationKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()

    /// The record of a bound case's device key, with its evidence unless `withEvidence` is false.
    static func record(_ minted: AppAttestFixtures.Case, withEvidence: Bool = true, required: Bool? = nil, id: String = "dev_aa") -> NodeDeviceRecord {
        NodeDeviceRecord(
            deviceId: id, clientId: "cl_1", userId: "usr_1",
            deviceKey: Data(AppAttestFixtures.hex(minted.tesseraDevicePublicKey)).base64EncodedString(),
            userVerificationKey: userVerificationKey,
            status: "active", appAttest: withEvidence ? evidence(minted) : nil, appAttestRequired: required
        )
    }

    /// The node's stored App Attest state of a device.
    static func held(_ node: NodeService, _ id: String = "dev_aa") async throws -> (required: Bool, outcome: NodeAppAttestOutcome?)? {
        let registry = node.registry
        return try await node.database.read { sql in try await registry.appAttest(deviceId: id, in: sql) }
    }

    static func attest(_ node: NodeService, _ minted: AppAttestFixtures.Case, id: String = "dev_aa") async throws -> NodeAttestation {
        let statement = AuthStatement.challenge(channelId: "ch_aa", deviceId: id, challenge: "abc")
        let signature = try minted.deviceKey().signature(for: statement).rawRepresentation.base64EncodedString()
        return try await node.attest(NodeAttestRequest(channelId: "ch_aa", deviceId: id, challenge: "abc", challengeSignature: signature))
    }

    static func isMissing(_ error: any Error) -> Bool { (error as? AppError)?.code == .nodeAppAttestMissing }

    @Test("a valid bound attestation is stored as verified; attest says appAttested, signed over the statement with the flag")
    func verified() async throws {
        let minted = try await AppAttestFixtures.minted()
        let valid = try minted.named("bound development attestation")
        let node = try await Self.mintedNode()
        #expect(try await node.store(Self.record(valid)).status == "active")
        let outcome = try #require(try await Self.held(node)?.outcome)
        #expect(outcome.status == "verified")
        #expect(outcome.failure == nil)
        #expect(outcome.keyId == Data(AppAttestFixtures.hex(valid.keyId)).base64EncodedString())
        #expect(outcome.verifiedAt == Int64(minted.date.timeIntervalSince1970 * 1000))
        let attestation = try await Self.attest(node, valid)
        #expect(attestation.appAttested == true)
        let signature = try #require(Data(base64Encoded: attestation.signature))
        let statement = { (flag: Bool) in
            AuthStatement.attestation(
                nodeId: node.identity.nodeId, channelId: "ch_aa", deviceId: "dev_aa", challenge: "abc", signedAt: attestation.signedAt, appAttested: flag
            )
        }
        #expect(node.identity.publicKey.isValidSignature(signature, for: statement(true)))
        #expect(!node.identity.publicKey.isValidSignature(signature, for: statement(false)))
        // The production case verifies under its own environment too.
        let production = try minted.named("bound production attestation")
        _ = try await node.store(Self.record(production, id: "dev_prod"))
        #expect(try await Self.held(node, "dev_prod")?.outcome?.status == "verified")
        await node.close()
    }

    @Test("evidence bound to another device key, a wrong chain, or the node's clock past the certificate: stored, not verified")
    func failures() async throws {
        let minted = try await AppAttestFixtures.minted()
        let node = try await Self.mintedNode()
        let other = try minted.named("bound to another device key")
        #expect(try await node.store(Self.record(other, id: "dev_other")).status == "active")   // the record is stored all the same
        #expect(try await Self.held(node, "dev_other")?.outcome == NodeAppAttestOutcome(
            status: "failed", failure: "not_bound", keyId: Data(AppAttestFixtures.hex(other.keyId)).base64EncodedString(),
            verifiedAt: Int64(minted.date.timeIntervalSince1970 * 1000)
        ))
        // Not required: the device is attested, without the flag.
        #expect(try await Self.attest(node, other, id: "dev_other").appAttested == nil)
        _ = try await node.store(Self.record(try minted.named("bound, wrong chain"), id: "dev_chain"))
        #expect(try await Self.held(node, "dev_chain")?.outcome?.failure == "wrong_chain")
        await node.close()
        // The credential certificate is valid for two days after the cases' time: three days later the node refuses it.
        let later = try await Self.mintedNode(at: minted.date.addingTimeInterval(3 * 86_400))
        _ = try await later.store(Self.record(try minted.named("bound development attestation")))
        #expect(try await Self.held(later)?.outcome?.failure == "certificate_expired")
        await later.close()
    }

    @Test("required: no evidence or failed evidence is refused 7408; verified evidence attests; a later record without evidence keeps it")
    func required() async throws {
        let minted = try await AppAttestFixtures.minted()
        let valid = try minted.named("bound development attestation")
        let second = try minted.named("bound development attestation, second device")
        let other = try minted.named("bound to another device key")
        let node = try await Self.mintedNode()
        _ = try await node.store(Self.record(valid, withEvidence: false, required: true))
        await #expect { _ = try await Self.attest(node, valid) } throws: { Self.isMissing($0) }
        _ = try await node.store(Self.record(other, required: true, id: "dev_other"))
        await #expect { _ = try await Self.attest(node, other, id: "dev_other") } throws: { Self.isMissing($0) }
        // The same keys again, now with their verified attestation.
        _ = try await node.store(Self.record(valid, required: true))
        #expect(try await Self.attest(node, valid).appAttested == true)
        // Re-sent without evidence (without the requirement stated, then with it): the verified outcome and the requirement stay.
        _ = try await node.store(Self.record(valid, withEvidence: false))
        #expect(try await Self.held(node)?.required == true)
        #expect(try await Self.attest(node, valid).appAttested == true)
        _ = try await node.store(Self.record(valid, withEvidence: false, required: true))
        #expect(try await Self.held(node)?.outcome?.status == "verified")
        #expect(try await Self.attest(node, valid).appAttested == true)
        // Evidence that fails now (another device's) does not undo the verified outcome.
        var replaced = Self.record(valid, required: true)
        replaced.appAttest = Self.evidence(second)
        _ = try await node.store(replaced)
        #expect(try await Self.held(node)?.outcome?.status == "verified")
        // A batch: each record's evidence is checked, the requirement stored per device.
        let results = try await node.storeAll([Self.record(second, required: true, id: "dev_b1"), Self.record(other, required: true, id: "dev_b2")])
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(try await Self.attest(node, second, id: "dev_b1").appAttested == true)
        await #expect { _ = try await Self.attest(node, other, id: "dev_b2") } throws: { Self.isMissing($0) }
        // A requirement lifted by a later record: the unverified device is attested again, without the flag.
        _ = try await node.store(Self.record(other, withEvidence: false, required: false, id: "dev_b2"))
        #expect(try await Self.attest(node, other, id: "dev_b2").appAttested == nil)
        await node.close()
    }

    @Test("a node trusting only Apple's root does not verify the minted attestation: refused 7408 under required")
    func appleRootOnly() async throws {
        let minted = try await AppAttestFixtures.minted()
        let valid = try minted.named("bound development attestation")
        let node = try await Self.node(roots: nil)
        _ = try await node.store(Self.record(valid, required: true))
        #expect(try await Self.held(node)?.outcome?.failure == "wrong_chain")
        await #expect { _ = try await Self.attest(node, valid) } throws: { Self.isMissing($0) }
        await node.close()
    }

    @Test("--app-attest-roots: the minted root's PEM is read; an unreadable or non-PEM file stops the node, naming it")
    func rootsFile() async throws {
        let minted = try await AppAttestFixtures.minted()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-roots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = directory.appendingPathComponent("roots.pem"), junk = directory.appendingPathComponent("junk.pem")
        try Data(minted.rootPEM.utf8).write(to: pem)
        try Data("not a certificate".utf8).write(to: junk)
        #expect(try AppAttestRoot.certificates(pemFile: pem.path) == [try minted.rootCertificate()])
        let serverKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        func open(_ roots: String) async throws {
            let configuration = NodeServer.Configuration(
                dataDirectory: directory.appendingPathComponent("node").path, host: "127.0.0.1", port: 0, serverKey: serverKey, appAttestRoots: roots
            )
            _ = try await NodeServer.open(configuration: configuration, logger: Logger(label: "node-test"))
        }
        for bad in [junk.path, directory.appendingPathComponent("missing.pem").path] {
            await #expect { try await open(bad) } throws: { error in
                "\(error)".contains("--app-attest-roots") && "\(error)".contains(bad)
            }
        }
    }
}
