import Configuration
import Foundation
import Synchronization
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The spare nodes of a login: the first round asks only as many nodes as the quorum needs; a spare
/// is asked for each node of the round that fails, and every spare left once the round is slower
/// than ``NodeQuorum/spareAfter``. Held nodes and a ``ManualClock``: nothing waits on real time.
@Suite("Node quorum: spare nodes")
struct SpareNodesTests {
    typealias HeldNode = AuthProgressTests.HeldNode

    static let request = NodeAttestRequest(channelId: "ch_spare", deviceId: "dv_spare", challenge: "challenge", challengeSignature: "unused")

    /// Three held nodes (`node-1`…`node-3`, asked in that order), a quorum of 2 with a spare after 100 ms,
    /// and the stream of the nodes' call markers.
    static func setUp(_ manual: ManualClock) -> (quorum: NodeQuorum, nodes: [HeldNode], selected: [NodeDirectory.Node], calls: AsyncStream<AuthEvent>) {
        let (calls, input) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
        let nodes = (1...3).map { HeldNode(nodeId: "node-\($0)", marker: $0, log: input, clock: manual.clock) }
        let quorum = NodeQuorum(
            nodes: AuthProgressTests.HeldNodes(nodes: nodes), quorum: 2, timeout: .seconds(3600), clock: manual.clock, spareAfter: .milliseconds(100)
        )
        return (quorum, nodes, nodes.map(\.node), calls)
    }

    /// The markers of the calls made so far (the stream is ended first).
    static func called(_ nodes: [HeldNode], _ calls: AsyncStream<AuthEvent>) async -> [Int] {
        nodes[0].log.finish()
        return await calls.reduce(into: []) { $0.append($1.code ?? 0) }
    }

    /// One round over the three nodes, each released beforehand with its verdict: its outcome, the
    /// nodes called (sorted markers) and the clock's time at the end.
    static func round(_ verdicts: [AuthProgressTests.Verdict]) async throws -> (outcome: NodeQuorum.Outcome, called: [Int], now: Int64) {
        let manual = ManualClock(start: 1_000_000)
        let (quorum, nodes, selected, calls) = Self.setUp(manual)
        for (node, verdict) in zip(nodes, verdicts) { node.gate.release(verdict) }
        let outcome = try await quorum.attest(Self.request, nodes: selected, requestsSent: {})
        #expect(await eventually { manual.waitingSleepers == 0 }, "the calls' timeouts and the spare's timer ended with the round")
        return (outcome, await Self.called(nodes, calls).sorted(), manual.clock.now())
    }

    @Test("healthy first round: the two nodes the quorum needs are asked, the spare never")
    func spareNotAsked() async throws {
        let (outcome, called, _) = try await Self.round([.attest, .attest, .attest])
        #expect(Set(outcome.attested) == ["node-1", "node-2"])
        #expect(outcome.failures.isEmpty)
        #expect(called == [1, 2])
    }

    @Test("a node of the first round fails: the spare is asked at once, without waiting for the delay")
    func failureAsksSpare() async throws {
        let (outcome, called, now) = try await Self.round([.refuse, .attest, .attest])
        #expect(Set(outcome.attested) == ["node-2", "node-3"])
        #expect(outcome.failures.count == 1)
        #expect(now == 1_000_000)  // no time passed: the failure itself brought the spare in
        #expect(called == [1, 2, 3])
    }

    @Test("a slow first round: once the delay passed the spare is asked, and the quorum is the fast node and the spare")
    func slowRoundAsksSpare() async throws {
        let manual = ManualClock(start: 1_000_000)
        let (quorum, nodes, selected, calls) = Self.setUp(manual)
        nodes[2].gate.release(.attest)
        let round = Task { try await quorum.attest(Self.request, nodes: selected, requestsSent: {}) }
        // Two calls under their timeouts, and the spare's timer.
        #expect(await eventually { nodes[0].gate.isWaiting && nodes[1].gate.isWaiting && manual.waitingSleepers == 3 })
        nodes[0].gate.release(.attest)
        #expect(await eventually { manual.waitingSleepers == 2 })
        manual.advance(by: .milliseconds(99))
        #expect(manual.waitingSleepers == 2)  // not yet
        manual.advance(by: .milliseconds(1))
        let outcome = try await round.value
        #expect(Set(outcome.attested) == ["node-1", "node-3"])
        // The slow node's call is not cancelled; its late answer is dropped.
        #expect(!nodes[1].gate.wasCancelled)
        nodes[1].gate.release(.attest)
        #expect(await eventually { manual.waitingSleepers == 0 })
        #expect(await Self.called(nodes, calls).sorted() == [1, 2, 3])
    }

    @Test("every node refuses: the failures use up the spare, then the round ends without a quorum")
    func allRefuse() async throws {
        let (outcome, called, _) = try await Self.round([.refuse, .refuse, .refuse])
        #expect(outcome.attested.isEmpty)
        #expect(outcome.failures.count == 3)
        #expect(called == [1, 2, 3])
    }

    @Test("the configuration: 100 ms by default, 0 asks every selected node at once, out of range is refused")
    func configuration() throws {
        func load(_ arguments: [String]) throws -> ServerConfiguration {
            try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: ["tessera"] + arguments)))
        }
        #expect(try load([]).nodeSpareAfter == .milliseconds(100))
        #expect(try load(["--nodes-spare-after-ms", "0"]).nodeSpareAfter == nil)
        #expect(try load(["--nodes-spare-after-ms", "250"]).nodeSpareAfter == .milliseconds(250))
        #expect(throws: ConfigurationError.self) { try load(["--nodes-spare-after-ms", "60001"]) }
    }
}
