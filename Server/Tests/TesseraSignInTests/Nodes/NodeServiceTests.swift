import Crypto
import Foundation
import Logging
import Testing
import TesseraCore
@testable import TesseraServer
@testable import TesseraNode
import TesseraServerTestSupport

/// A verifier node's registry rules: receipts that verify, revocation that sticks, no key swap,
/// attestations only for known, active devices with a valid signature.
@Suite("Verifier node")
struct NodeServiceTests {
    static func node() async throws -> NodeService {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-test-\(UUID().uuidString)").path
        return try await NodeService.open(directory: directory, inMemory: true, logger: Logger(label: "node-test"))
    }

    static func record(_ deviceKey: P256.Signing.PrivateKey, status: String = "active", id: String = "dev_1") -> NodeDeviceRecord {
        NodeDeviceRecord(
            deviceId: id, clientId: "cl_1", userId: "usr_1", deviceKey: deviceKey.publicKey.x963Representation.base64EncodedString(),
            userVerificationKey: P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString(), status: status
        )
    }

    static func attestRequest(_ key: P256.Signing.PrivateKey, id: String = "dev_1") throws -> NodeAttestRequest {
        let statement = AuthStatement.challenge(channelId: "ch_1", deviceId: id, challenge: "abc")
        return NodeAttestRequest(
            channelId: "ch_1", deviceId: id, challenge: "abc", challengeSignature: try key.signature(for: statement).rawRepresentation.base64EncodedString()
        )
    }

    @Test("store answers a receipt signed by the node's key; attest answers a verifiable attestation")
    func receiptAndAttestation() async throws {
        let node = try await Self.node()
        let key = P256.Signing.PrivateKey()
        let record = Self.record(key)
        let receipt = try await node.store(record)
        let statement = AuthStatement.receipt(
            nodeId: receipt.nodeId, deviceId: "dev_1", status: "active", keysDigest: record.keysDigest, signedAt: receipt.signedAt
        )
        #expect(node.identity.publicKey.isValidSignature(try #require(Data(base64Encoded: receipt.signature)), for: statement))
        let attestation = try await node.attest(try Self.attestRequest(key))
        let attested = AuthStatement.attestation(nodeId: node.identity.nodeId, channelId: "ch_1", deviceId: "dev_1", challenge: "abc", signedAt: attestation.signedAt)
        #expect(node.identity.publicKey.isValidSignature(try #require(Data(base64Encoded: attestation.signature)), for: attested))
        // The same statement for another challenge does not verify.
        let other = AuthStatement.attestation(nodeId: node.identity.nodeId, channelId: "ch_1", deviceId: "dev_1", challenge: "abd", signedAt: attestation.signedAt)
        #expect(!node.identity.publicKey.isValidSignature(try #require(Data(base64Encoded: attestation.signature)), for: other))
        await node.close()
    }

    @Test("unknown device 5101, revoked 5102 (a replayed enrolment does not bring it back), bad signature 5103, other keys 5105")
    func refusals() async throws {
        let node = try await Self.node()
        let key = P256.Signing.PrivateKey()
        await #expect { _ = try await node.attest(try Self.attestRequest(key)) } throws: { ($0 as? AppError)?.code == .nodeDeviceUnknown }
        let record = Self.record(key)
        _ = try await node.store(record)
        await #expect { _ = try await node.attest(try Self.attestRequest(P256.Signing.PrivateKey())) } throws: {
            ($0 as? AppError)?.code == .nodeSignatureInvalid
        }
        var swapped = record
        swapped.deviceKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        await #expect { _ = try await node.store(swapped) } throws: { ($0 as? AppError)?.code == .nodeKeyConflict }
        var revoked = record
        revoked.status = "revoked"
        #expect(try await node.store(revoked).status == "revoked")
        #expect(try await node.store(record).status == "revoked")
        await #expect { _ = try await node.attest(try Self.attestRequest(key)) } throws: { ($0 as? AppError)?.code == .nodeDeviceRevoked }
        await node.close()
    }

    @Test("a batch is stored in one call with a result per record: a refused record leaves the others stored and the registry as it was")
    func batch() async throws {
        let node = try await Self.node()
        let key = P256.Signing.PrivateKey()
        let first = Self.record(key, id: "dev_1")
        _ = try await node.store(first)
        var swapped = first
        swapped.deviceKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        swapped.status = "revoked"
        let second = Self.record(P256.Signing.PrivateKey(), id: "dev_2")
        let third = Self.record(P256.Signing.PrivateKey(), status: "revoked", id: "dev_3")
        let results = try await node.storeAll([second, swapped, third])
        #expect(results.count == 3)
        let receipts = results.compactMap { try? $0.get() }
        #expect(receipts.map(\.deviceId) == ["dev_2", "dev_3"])
        #expect(receipts.map(\.status) == ["active", "revoked"])
        for (receipt, record) in zip(receipts, [second, third]) {
            let statement = AuthStatement.receipt(
                nodeId: receipt.nodeId, deviceId: record.deviceId, status: receipt.status, keysDigest: record.keysDigest, signedAt: receipt.signedAt
            )
            #expect(node.identity.publicKey.isValidSignature(try #require(Data(base64Encoded: receipt.signature)), for: statement))
        }
        guard case .failure(let refusal) = results[1] else { Issue.record("the swapped keys were accepted"); return }
        #expect(refusal.code == .nodeKeyConflict)
        // The refused revocation with other keys did not revoke the device: it still attests.
        #expect(try await node.attest(try Self.attestRequest(key, id: "dev_1")).nodeId == node.identity.nodeId)
        #expect(try await node.info.devices == 3)
        await node.close()
    }
}

