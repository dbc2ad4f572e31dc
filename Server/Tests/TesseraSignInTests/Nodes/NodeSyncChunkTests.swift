import Foundation
import Testing
import TesseraCore
@testable import TesseraServer

/// The node sync's calls (issue 41): records carrying an App Attest attestation are several KiB, so a call carries at
/// most ``NodeDeviceBatch/maxRecords`` records and about ``NodeSyncService/maxBatchBytes``, well under the node's
/// 64 KiB body limit; every record goes exactly once, in order.
@Suite("Node sync chunks")
struct NodeSyncChunkTests {
    static func item(_ index: Int, evidence bytes: Int?) -> NodeSyncItem {
        let evidence = bytes.map {
            NodeAppAttestEvidence(
                attestationObject: String(repeating: "A", count: $0), keyId: "k", challenge: "c", teamId: "TESTTEAM42", bundleId: "b",
                environment: "production"
            )
        }
        return NodeSyncItem(nodeId: "nd_1", deviceId: "dev_\(index)", attempts: 0, record: NodeDeviceRecord(
            deviceId: "dev_\(index)", clientId: "cl", userId: "usr", deviceKey: "k", userVerificationKey: "u", status: "active", appAttest: evidence
        ))
    }

    @Test("plain records go 64 a call; records with 8 KiB attestations a few a call, each call's JSON under 64 KiB; none lost or repeated")
    func chunks() throws {
        let plain = (0..<150).map { Self.item($0, evidence: nil) }
        #expect(NodeSyncService.chunks(plain).map(\.count) == [64, 64, 22])
        let mixed = (0..<100).map { Self.item($0, evidence: $0 % 3 == 0 ? 8 * 1024 : nil) }
        let calls = NodeSyncService.chunks(mixed)
        #expect(calls.flatMap { $0 }.map(\.deviceId) == mixed.map(\.deviceId))
        for call in calls {
            let body = try JSONEncoder().encode(NodeDeviceBatch(records: call.compactMap(\.record)))
            #expect(body.count < 64 * 1024, "a call of \(call.count) records is \(body.count) bytes")
        }
        #expect(calls.count > 2)
        // A record larger than a call's budget goes alone.
        let huge = [Self.item(0, evidence: 60 * 1024), Self.item(1, evidence: nil)]
        #expect(NodeSyncService.chunks(huge).map(\.count) == [1, 1])
    }
}
