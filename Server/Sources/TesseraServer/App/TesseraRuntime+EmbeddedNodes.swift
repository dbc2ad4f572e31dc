import Foundation
import Logging

extension TesseraRuntime {
    /// Starts the configured embedded nodes with `launcher`, each in its own directory under
    /// ``ServerConfiguration/embeddedNodesDirectory`` (outside the data directory: the server never
    /// reads a node's key). A node directory left by an older version in `<dataDir>/nodes/` is moved
    /// there first, so the node keeps its key and registry.
    static func launchEmbeddedNodes(
        configuration: ServerConfiguration, keys: ServerKeys, launcher: (any EmbeddedNodeLauncher)?, logger: Logger
    ) async throws -> [EmbeddedNode] {
        guard configuration.embeddedNodes > 0 else { return [] }
        guard let launcher else {
            throw ConfigurationError("nodes.embedded: this process cannot start embedded verifier nodes; set nodes.embedded to 0 and register `tessera node` processes")
        }
        let files = FileManager.default
        let base = configuration.embeddedNodesDirectory
        try files.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let serverKey = keys.nodeControlKey.publicKey.x963Representation.base64EncodedString()
        // Moved first (file operations), then started together: each start waits for its node's
        // ready line, and one after the other they tripled the time to ready.
        var requests: [EmbeddedNodeRequest] = []
        for index in 1...configuration.embeddedNodes {
            let directory = (base as NSString).appendingPathComponent("embedded-\(index)")
            let old = (configuration.dataDirectory as NSString).appendingPathComponent("nodes/embedded-\(index)")
            if files.fileExists(atPath: old), !files.fileExists(atPath: directory) {
                try files.moveItem(atPath: old, toPath: directory)
                logger.notice("embedded node moved out of the data directory", metadata: ["from": .string(old), "to": .string(directory)])
            }
            requests.append(EmbeddedNodeRequest(
                index: index, directory: directory, serverKey: serverKey, appAttestRoots: configuration.appAttestRoots
            ))
        }
        let outcomes = await withTaskGroup(of: (Int, Result<EmbeddedNode, any Error>).self) { group in
            for request in requests {
                group.addTask {
                    do { return (request.index, .success(try await launcher.launch(request))) } catch { return (request.index, .failure(error)) }
                }
            }
            var outcomes: [(Int, Result<EmbeddedNode, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var started: [EmbeddedNode] = []
        var firstFailure: (any Error)?
        for outcome in outcomes {
            switch outcome {
            case .success(let node): started.append(node)
            case .failure(let error): firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure {
            for node in started { await node.stop() }
            throw firstFailure
        }
        return started
    }
}
