import Foundation
import TesseraCore

/// Asks the selected nodes, all at once, to attest a device's signed challenge, and waits for a
/// quorum. Each step is reported when it really happens: the requests are announced as sent once
/// every node's call is under way, and the quorum is declared only after enough attestations verified.
struct NodeQuorum: Sendable {
    let nodes: any AttestingNodes
    let quorum: Int
    /// How long one node may take, on the injected clock.
    let timeout: Duration
    let clock: WallClock
    /// Records each node's attestation latency and failures (nil: not recorded).
    var metrics: ServerMetrics? = nil

    /// The nodes that attested, and why the others did not.
    struct Outcome: Sendable {
        var attested: [String]
        var failures: [String]
    }

    private enum Progress: Sendable {
        case sent
        case answered(Result<String, NodeCallError>)
    }

    /// Sends `request` to every node in `selected`; calls `requestsSent` once all the calls are under
    /// way, then returns as soon as a quorum verified (the rest are cancelled) or every node answered
    /// or timed out. An error from `requestsSent` ends the round and is rethrown.
    func attest(
        _ request: NodeAttestRequest, nodes selected: [NodeDirectory.Node], requestsSent: @Sendable () async throws -> Void
    ) async throws -> Outcome {
        let (progress, report) = AsyncStream<Progress>.makeStream(bufferingPolicy: .unbounded)
        defer { report.finish() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for node in selected {
                group.addTask { report.yield(.answered(await ask(node, request, sent: { report.yield(.sent) }))) }
            }
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
                case .answered(.success(let id)):
                    answered += 1
                    outcome.attested.append(id)
                case .answered(.failure(let error)):
                    answered += 1
                    outcome.failures.append(error.description)
                }
                if !announced, sent == selected.count {
                    try await requestsSent()
                    announced = true
                }
                if announced, outcome.attested.count >= quorum || answered == selected.count { break }
            }
            group.cancelAll()
            try Task.checkCancellation()
            return outcome
        }
    }

    /// One node's attestation, checked against its key; `sent` is called as its call starts.
    private func ask(_ node: NodeDirectory.Node, _ request: NodeAttestRequest, sent: @escaping @Sendable () -> Void) async
        -> Result<String, NodeCallError>
    {
        let id = node.entry.nodeId
        let start = ContinuousClock.now
        let result = await verifiedAttestation(node, request, sent: sent)
        // A call cancelled because the quorum was reached without it is neither a failure nor a latency.
        if case .failure = result, Task.isCancelled { return result }
        metrics?.nodeAttestation(nodeId: id, duration: start.duration(to: .now), failed: (try? result.get()) == nil)
        return result
    }

    /// The call and the check of ``ask(_:_:sent:)``.
    private func verifiedAttestation(_ node: NodeDirectory.Node, _ request: NodeAttestRequest, sent: @escaping @Sendable () -> Void) async
        -> Result<String, NodeCallError>
    {
        let id = node.entry.nodeId, timeout = self.timeout
        do {
            let attestation = try await clock.withTimeout(
                timeout, failure: { NodeCallError(nodeId: id, code: nil, message: "timed out after \(timeout)") }
            ) {
                sent()
                return try await node.client.attest(request)
            }
            let statement = AuthStatement.attestation(
                nodeId: id, channelId: request.channelId, deviceId: request.deviceId, challenge: request.challenge, signedAt: attestation.signedAt
            )
            guard attestation.nodeId == id, let signature = Data(base64Encoded: attestation.signature),
                  node.publicKey.isValidSignature(signature, for: statement)
            else { return .failure(NodeCallError(nodeId: id, code: nil, message: "attestation does not verify")) }
            nodes.markHealthy(id)
            return .success(id)
        } catch let error as NodeCallError {
            if error.code == nil { nodes.markFailed(id) }
            return .failure(error)
        } catch {
            return .failure(NodeCallError(nodeId: id, code: nil, message: String(describing: error)))
        }
    }
}
