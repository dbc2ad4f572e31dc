import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TesseraCore

/// Passkeys at the verifier nodes (issue 38): every node is sent each passkey's public key, user handle,
/// RP ID and origins, and its revocation, until it returns a signed receipt (kept in
/// `passkey_node_receipts`); where a client requires it, a quorum of nodes verifies each passkey sign-in's
/// assertion on its own and signs for it, so a server alone cannot mint a passkey sign-in.
///
/// Delivery: right after a registration or revocation commits (``sync()``), and by this service every
/// `pollInterval` for whatever a node still lacks (a node that was down, one added later); a node that fails
/// is left alone for a while (doubling from 2 s up to 5 min).
package struct PasskeyNodes: Service {
    package let database: any Database
    package let repository: any PasskeyNodeRepository
    package let directory: NodeDirectory
    package let quorum: NodeQuorum
    /// How many nodes a sign-in selects (spares included).
    package let perSignIn: Int
    package let settings: PasskeySettings
    package let clock: WallClock
    package let logger: Logger
    package var pollInterval: Duration = .seconds(2)
    private let backoff = Backoff()

    package init(
        database: any Database, repository: any PasskeyNodeRepository, directory: NodeDirectory, quorum: NodeQuorum, perSignIn: Int,
        settings: PasskeySettings, clock: WallClock, logger: Logger, pollInterval: Duration = .seconds(2)
    ) {
        self.database = database
        self.repository = repository
        self.directory = directory
        self.quorum = quorum
        self.perSignIn = perSignIn
        self.settings = settings
        self.clock = clock
        self.logger = logger
        self.pollInterval = pollInterval
    }

    /// Which nodes may not be tried before when (ms), and how many times each failed in a row.
    private final class Backoff: Sendable {
        let state = Mutex<[String: (until: Int64, failures: Int)]>([:])
    }

    package func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            await sync()
            try? await Task.sleep(for: pollInterval)
        }
    }

    /// What a node is told about a passkey.
    func record(_ state: PasskeyNodeState) -> NodePasskeyRecord {
        NodePasskeyRecord(
            passkeyId: state.id, clientId: state.client_id, userId: state.user_id, credentialId: state.credential_id, publicKey: state.public_key,
            userHandle: state.user_handle, rpId: settings.rpId, origins: settings.origins.sorted(), status: state.status
        )
    }

    /// Sends every reachable node what it has not acknowledged yet, and keeps the receipts that verify.
    package func sync() async {
        let nodes: [NodeDirectory.Node]
        do { nodes = try await directory.current() } catch {
            logger.warning("passkey node sync failed", metadata: ["error": .string(String(describing: error))])
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for node in nodes { group.addTask { await sync(node) } }
        }
    }

    private func sync(_ node: NodeDirectory.Node) async {
        let id = node.entry.nodeId, now = clock.now()
        if let wait = backoff.state.withLock({ $0[id] }), wait.until > now { return }
        do {
            for _ in 0..<16 {
                let repository = self.repository
                let states = try await database.read { sql in try await repository.unsynced(nodeId: id, limit: NodeDeviceBatch.maxRecords, in: sql) }
                guard !states.isEmpty else { break }
                let records = states.map(record)
                let outcomes = try await node.client.storePasskeys(records)
                var receipts: [PasskeyNodeReceipt] = []
                for (record, outcome) in zip(records, outcomes) {
                    guard let receipt = outcome.receipt, receipt.deviceId == record.passkeyId, receipt.keysDigest == record.keysDigest,
                          node.signed(receipt.signature, as: receipt.nodeId, over: AuthStatement.passkeyReceipt(
                            nodeId: id, passkeyId: record.passkeyId, status: receipt.status, keysDigest: receipt.keysDigest, signedAt: receipt.signedAt))
                    else { continue }
                    receipts.append(PasskeyNodeReceipt(
                        nodeId: id, passkeyId: record.passkeyId, status: receipt.status, keysDigest: receipt.keysDigest, signedAt: receipt.signedAt,
                        signature: receipt.signature
                    ))
                }
                let received = clock.now()
                try await database.transaction { [receipts] sql in try await repository.store(receipts, receivedAt: received, in: sql) }
                guard receipts.count == records.count else {
                    let refused = zip(records, outcomes).filter { $0.1.receipt == nil }.map { "\($0.0.passkeyId): \($0.1.code.map(String.init) ?? "") \($0.1.title ?? "")" }
                    throw NodeCallError(nodeId: id, code: nil, message: "refused or unverified: \(refused.joined(separator: "; "))")
                }
            }
            backoff.state.withLock { _ = $0.removeValue(forKey: id) }
        } catch {
            let failures = backoff.state.withLock { state in
                let failures = (state[id]?.failures ?? 0) + 1
                state[id] = (now + min(Int64(1000) << min(failures, 9), 300_000), failures)
                return failures
            }
            logger.info("passkey node sync will retry", metadata: [
                "node": .string(id), "failures": .stringConvertible(failures), "error": .string(String(String(describing: error).prefix(300))),
            ])
        }
    }

    /// Asks a quorum of nodes to verify `request` on their own; the nodes that attested (fewer than the
    /// quorum when it was not reached).
    package func attest(_ request: NodePasskeyAttestRequest) async throws -> NodeQuorum.Outcome {
        let selected = try await directory.select(perSignIn)
        let question = NodeQuestion<NodePasskeyAttestation>(call: { node in try await node.client.attestPasskey(request) }) { node, attestation in
            let statement = AuthStatement.passkeyAttestation(
                nodeId: node.entry.nodeId, passkeyId: request.passkeyId, challenge: request.challenge, signCount: attestation.signCount,
                signedAt: attestation.signedAt
            )
            return node.signed(attestation.signature, as: attestation.nodeId, over: statement)
        }
        return try await quorum.ask(question, nodes: selected, requestsSent: {})
    }
}
