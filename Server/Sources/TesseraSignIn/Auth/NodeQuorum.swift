import Foundation
import Synchronization
import TesseraCore

/// Asks the selected nodes to attest a device's signed challenge, and waits for a quorum. Each step is
/// reported when it really happens: the requests are announced as sent once the first round's calls
/// are under way, and the quorum is declared only after enough attestations verified.
///
/// With ``spareAfter`` set, the first round asks only as many nodes as the quorum needs; the others
/// selected are spares, asked when a node of the round fails (one spare for each failure) or when
/// the round has not reached its quorum within ``spareAfter`` (every spare left). Without it every
/// selected node is asked at once. Either way a quorum of verified attestations is required: the
/// spares change how many nodes are asked, never how many must attest.
package struct NodeQuorum: Sendable {
    package let nodes: any AttestingNodes
    package let quorum: Int
    /// How long one node may take, on the injected clock.
    package let timeout: Duration
    package let clock: WallClock
    /// Records each node's attestation latency and failures (nil: not recorded).
    package var metrics: (any LoginMetrics)? = nil
    /// How long the first round may take before the spare nodes are asked too, on the injected clock
    /// (nil: every selected node is asked at once).
    package var spareAfter: Duration? = nil

    package init(
        nodes: any AttestingNodes,
        quorum: Int,
        timeout: Duration,
        clock: WallClock,
        metrics: (any LoginMetrics)? = nil,
        spareAfter: Duration? = nil
    ) {
        self.nodes = nodes
        self.quorum = quorum
        self.timeout = timeout
        self.clock = clock
        self.metrics = metrics
        self.spareAfter = spareAfter
    }

    /// The nodes that attested, and why the others did not.
    package struct Outcome: Sendable {
        package var attested: [String]
        package var failures: [String]
        /// The nodes of ``attested`` whose verified answer said, signed, that they hold an App Attest attestation of
        /// the device that they verified themselves (issue 41; ``NodeQuestion/appAttested``).
        package var appAttested: [String] = []
    }

    /// A node's answer that verified: its ID, and whether it carries the App Attest flag.
    private struct Verified: Sendable {
        var id: String
        var appAttested: Bool
    }

    private enum Progress: Sendable {
        case sent
        case answered(Result<Verified, NodeCallError>)
        case spareDue
    }

    /// The calls of one round, cancelled together; a call added after the round was cancelled is
    /// cancelled at once.
    private final class Calls: Sendable {
        private let state = Mutex<(tasks: [Task<Void, Never>], cancelled: Bool)>(([], false))

        func add(_ task: Task<Void, Never>) {
            let cancelled = state.withLock { state in
                if !state.cancelled { state.tasks.append(task) }
                return state.cancelled
            }
            if cancelled { task.cancel() }
        }

        func cancelAll() {
            let tasks = state.withLock { state in
                state.cancelled = true
                return state.tasks
            }
            for task in tasks { task.cancel() }
        }
    }

    /// Sends `request` to the first round of `selected` (all of them without ``spareAfter``), and to
    /// spares as described above; calls `requestsSent` once the first round's calls are under way,
    /// then returns as soon as a quorum verified or every node asked answered or timed out with no
    /// spare left. An error from `requestsSent` ends the round (the calls still under way are
    /// cancelled) and is rethrown.
    ///
    /// The calls still under way once a quorum verified are not cancelled: they end on their own,
    /// with the node's answer or the timeout, and their answers are dropped unchecked. A cancelled
    /// HTTP call closes its connection (async-http-client cannot reuse a connection whose answer was
    /// not read), so with a quorum of 2 of 3 every ceremony connected to a node again; the answer
    /// arrives moments later on the kept-alive connection instead. If the caller is cancelled (the
    /// device went away), every call is cancelled as before. Answers are checked only as many at a time
    /// as the quorum still needs (``QuorumRound``): the third of three arriving together waits, and is
    /// checked only if one of the first two fails.
    package func attest(
        _ request: NodeAttestRequest, nodes selected: [NodeDirectory.Node], requestsSent: @Sendable () async throws -> Void
    ) async throws -> Outcome {
        // The App Attest flag is part of the signed statement: a node's answer verifies only with the flag it signed.
        let question = NodeQuestion<NodeAttestation>(
            call: { node in try await node.client.attest(request) },
            verifies: { node, attestation in
                let statement = AuthStatement.attestation(
                    nodeId: node.entry.nodeId, channelId: request.channelId, deviceId: request.deviceId, challenge: request.challenge,
                    signedAt: attestation.signedAt, appAttested: attestation.appAttested ?? false
                )
                return node.signed(attestation.signature, as: attestation.nodeId, over: statement)
            },
            appAttested: { $0.appAttested == true }
        )
        return try await ask(question, nodes: selected, requestsSent: requestsSent)
    }

    /// Asks `selected` the `question` (an attestation of a device's challenge, of a passkey assertion) as
    /// ``attest(_:nodes:requestsSent:)`` describes, and waits for a quorum of answers that verify.
    package func ask<Answer: Sendable>(
        _ question: NodeQuestion<Answer>, nodes selected: [NodeDirectory.Node], requestsSent: @Sendable () async throws -> Void
    ) async throws -> Outcome {
        let (progress, report) = AsyncStream<Progress>.makeStream(bufferingPolicy: .unbounded)
        defer { report.finish() }
        let round = QuorumRound(quorum: quorum)
        let calls = Calls()
        let firstRound = spareAfter == nil ? selected.count : min(quorum, selected.count)
        var spares = selected.dropFirst(firstRound)
        func ask(_ node: NodeDirectory.Node) {
            calls.add(Task { report.yield(.answered(await self.ask(node, question, round: round, sent: { report.yield(.sent) }))) })
        }
        func askSpare(_ node: NodeDirectory.Node) {
            metrics?.spareNodeAsked()
            ask(node)
        }
        for node in selected.prefix(firstRound) { ask(node) }
        let timer: Task<Void, Never>? = spareAfter.flatMap { delay in
            spares.isEmpty ? nil : Task { [clock] in
                do { try await clock.sleep(delay) } catch { return }
                report.yield(.spareDue)
            }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            defer { round.settle() }   // whatever ends the round: answers arriving later are dropped
            do {
                var sent = 0, answered = 0, announced = false
                var outcome = Outcome(attested: [], failures: [])
                if selected.isEmpty {
                    // No node to ask: nothing will answer, so the outcome (no attestation) is final now.
                    try await requestsSent()
                    return outcome
                }
                for await step in progress {
                    switch step {
                    case .sent: sent += 1
                    case .answered(.success(let verified)):
                        answered += 1
                        outcome.attested.append(verified.id)
                        if verified.appAttested { outcome.appAttested.append(verified.id) }
                    case .answered(.failure(let error)):
                        answered += 1
                        outcome.failures.append(error.description)
                        if let spare = spares.popFirst() { askSpare(spare) }
                    case .spareDue:
                        while let spare = spares.popFirst() { askSpare(spare) }
                    }
                    if !announced, sent >= firstRound {
                        try await requestsSent()
                        announced = true
                    }
                    // Every selected node answered (spares included: one is asked only when it is popped from them).
                    if announced, outcome.attested.count >= quorum || answered == selected.count { break }
                }
                try Task.checkCancellation()
                return outcome
            } catch {
                calls.cancelAll()
                throw error
            }
        } onCancel: {
            round.settle()
            calls.cancelAll()
        }
    }

    /// One node's attestation, checked against its key; `sent` is called as its call starts. An
    /// answer that arrives after the round was settled is dropped: neither checked, nor a failure,
    /// nor a latency.
    private func ask<Answer: Sendable>(
        _ node: NodeDirectory.Node, _ question: NodeQuestion<Answer>, round: QuorumRound, sent: @escaping @Sendable () -> Void
    ) async -> Result<Verified, NodeCallError> {
        let id = node.entry.nodeId
        let start = ContinuousClock.now
        let result = await verifiedAnswer(node, question, round: round, sent: sent)
        if round.isSettled || Task.isCancelled { return result }
        metrics?.nodeAttestation(nodeId: id, duration: start.duration(to: .now), failed: (try? result.get()) == nil)
        return result
    }

    /// The call and the check of one node's answer.
    private func verifiedAnswer<Answer: Sendable>(
        _ node: NodeDirectory.Node, _ question: NodeQuestion<Answer>, round: QuorumRound, sent: @escaping @Sendable () -> Void
    ) async -> Result<Verified, NodeCallError> {
        let id = node.entry.nodeId, timeout = self.timeout
        do {
            let answer = try await clock.withTimeout(
                timeout, failure: { NodeCallError(nodeId: id, code: nil, message: "timed out after \(timeout)") }
            ) {
                sent()
                return try await question.call(node)
            }
            guard await round.admit() else { return .failure(NodeCallError(nodeId: id, code: nil, message: "answered after the quorum")) }
            let verifies = question.verifies(node, answer)
            round.finished(verified: verifies)
            guard verifies else { return .failure(NodeCallError(nodeId: id, code: nil, message: "attestation does not verify")) }
            nodes.markHealthy(id)
            return .success(Verified(id: id, appAttested: question.appAttested(answer)))
        } catch let error as NodeCallError {
            if error.code == nil, !round.isSettled { nodes.markFailed(id) }
            return .failure(error)
        } catch {
            return .failure(NodeCallError(nodeId: id, code: nil, message: String(describing: error)))
        }
    }
}

/// What the quorum asks each node: the call, and the check of its answer against the node's key.
package struct NodeQuestion<Answer: Sendable>: Sendable {
    package var call: @Sendable (NodeDirectory.Node) async throws -> Answer
    package var verifies: @Sendable (NodeDirectory.Node, Answer) -> Bool
    /// Whether an answer that verified says the node holds a verified App Attest attestation of the device (the flag
    /// must be covered by what ``verifies`` checks); false for questions without it.
    package var appAttested: @Sendable (Answer) -> Bool

    package init(
        call: @escaping @Sendable (NodeDirectory.Node) async throws -> Answer, verifies: @escaping @Sendable (NodeDirectory.Node, Answer) -> Bool,
        appAttested: @escaping @Sendable (Answer) -> Bool = { _ in false }
    ) {
        self.call = call
        self.verifies = verifies
        self.appAttested = appAttested
    }
}
