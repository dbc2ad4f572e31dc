import Crypto
import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraNode
@testable import TesseraServer

/// The server's check of the nodes' App Attest flag (issue 41): ``NodeQuorum/Outcome/appAttested`` lists only the
/// nodes whose answer verified over the statement with the flag they sent.
@Suite("Node quorum: App Attest")
struct NodeAppAttestQuorumTests {
    /// A real node service answering over a test client; `tamper` changes its answer's flag after it signed.
    struct ServiceNode: NodeClient {
        let service: NodeService
        var tamper: (@Sendable (Bool?) -> Bool?)? = nil
        var nodeId: String { service.identity.nodeId }

        func storeAll(_ records: [NodeDeviceRecord]) async throws -> [NodeStoreOutcome] {
            throw NodeCallError(nodeId: nodeId, code: nil, message: "not used")
        }

        func attest(_ request: NodeAttestRequest) async throws -> NodeAttestation {
            var attestation = try await service.attest(request)
            if let tamper { attestation.appAttested = tamper(attestation.appAttested) }
            return attestation
        }

        var node: NodeDirectory.Node {
            NodeDirectory.Node(
                entry: NodeEntry(nodeId: nodeId, name: nodeId, url: "test:\(nodeId)", publicKey: service.identity.publicKeyBase64, enabled: true, createdAt: 0),
                publicKey: service.identity.publicKey, client: self
            )
        }
    }

    struct Nodes: AttestingNodes {
        let nodes: [NodeDirectory.Node]
        func select(_ count: Int) async throws -> [NodeDirectory.Node] { Array(nodes.prefix(count)) }
        func markHealthy(_ id: String) {}
        func markFailed(_ id: String) {}
    }

    @Test("Outcome.appAttested: the nodes that verified the attestation and signed the flag; a flag added or removed after signing fails")
    func appAttestedNodes() async throws {
        let minted = try await AppAttestFixtures.minted()
        let valid = try minted.named("bound development attestation")
        // Two nodes trust the minted root (they verify), two trust Apple's root only (they do not); none requires it.
        var services: [NodeService] = []
        for trusting in [true, false, true, false] {
            let node = try await trusting ? NodeAppAttestTests.mintedNode() : NodeAppAttestTests.node(roots: nil)
            _ = try await node.store(NodeAppAttestTests.record(valid))
            services.append(node)
        }
        let honestVerified = ServiceNode(service: services[0]), honestUnverified = ServiceNode(service: services[1])
        let stripped = ServiceNode(service: services[2], tamper: { _ in nil })
        let added = ServiceNode(service: services[3], tamper: { _ in true })
        let selected = [honestVerified.node, honestUnverified.node, stripped.node, added.node]
        let quorum = NodeQuorum(nodes: Nodes(nodes: selected), quorum: 4, timeout: .seconds(3600), clock: ManualClock().clock)
        let statement = AuthStatement.challenge(channelId: "ch_aa", deviceId: "dev_aa", challenge: "abc")
        let request = NodeAttestRequest(
            channelId: "ch_aa", deviceId: "dev_aa", challenge: "abc",
            challengeSignature: try valid.deviceKey().signature(for: statement).rawRepresentation.base64EncodedString()
        )
        let outcome = try await quorum.attest(request, nodes: selected, requestsSent: {})
        #expect(Set(outcome.attested) == [honestVerified.nodeId, honestUnverified.nodeId])
        #expect(outcome.appAttested == [honestVerified.nodeId])
        #expect(outcome.failures.count == 2)
        for service in services { await service.close() }
    }

    @Test("required: two of three nodes never verified the attestation and refuse (7408), so the quorum of 2 is not reached")
    func requiredFailsClosed() async throws {
        let minted = try await AppAttestFixtures.minted()
        let valid = try minted.named("bound development attestation")
        var services: [NodeService] = []
        for trusting in [true, false, false] {
            let node = try await trusting ? NodeAppAttestTests.mintedNode() : NodeAppAttestTests.node(roots: nil)
            _ = try await node.store(NodeAppAttestTests.record(valid, required: true))
            services.append(node)
        }
        let selected = services.map { ServiceNode(service: $0).node }
        let quorum = NodeQuorum(nodes: Nodes(nodes: selected), quorum: 2, timeout: .seconds(3600), clock: ManualClock().clock)
        let statement = AuthStatement.challenge(channelId: "ch_aa", deviceId: "dev_aa", challenge: "abc")
        let request = NodeAttestRequest(
            channelId: "ch_aa", deviceId: "dev_aa", challenge: "abc",
            challengeSignature: try valid.deviceKey().signature(for: statement).rawRepresentation.base64EncodedString()
        )
        let outcome = try await quorum.attest(request, nodes: selected, requestsSent: {})
        #expect(outcome.attested == [services[0].identity.nodeId])
        #expect(outcome.appAttested == [services[0].identity.nodeId])
        #expect(outcome.failures.count == 2)
        #expect(outcome.failures.allSatisfy { $0.contains("7408") }, "failures: \(outcome.failures)")
        for service in services { await service.close() }
    }
}
