import Foundation
import Logging
import TesseraNode
import TesseraServer

/// Runs each embedded node in the test process, served over loopback HTTP on a free port: the
/// server still reaches it only through its HTTP client, as `tessera serve` reaches its child
/// processes, without the cost of starting processes in every test.
public struct InProcessNodeLauncher: EmbeddedNodeLauncher {
    let logger: Logger
    /// The App Attest roots file of node `index` (1-based) instead of the server's (nil: the server's).
    let appAttestRoots: @Sendable (Int) -> String?

    /// Nodes that log with `logger` (by default only critical messages: stopping a node by
    /// cancelling its task logs the cancellation as an error); `appAttestRoots` gives a node a roots file of its own.
    public init(logger: Logger = InProcessNodeLauncher.quietLogger, appAttestRoots: @escaping @Sendable (Int) -> String? = { _ in nil }) {
        self.logger = logger
        self.appAttestRoots = appAttestRoots
    }

    /// A logger for critical messages only.
    public static var quietLogger: Logger {
        var logger = Logger(label: "test-node")
        logger.logLevel = .critical
        return logger
    }

    public func launch(_ request: EmbeddedNodeRequest) async throws -> EmbeddedNode {
        let node = try await NodeServer.open(
            configuration: .init(
                dataDirectory: request.directory, host: "127.0.0.1", port: 0, serverKey: request.serverKey,
                appAttestRoots: appAttestRoots(request.index) ?? request.appAttestRoots
            ),
            logger: logger
        )
        let (listening, announce) = AsyncStream.makeStream(of: String.self)
        let task = Task {
            do {
                try await node.runUntilCancelled { url in
                    announce.yield(url)
                    announce.finish()
                }
            } catch {
                announce.finish()
                throw error
            }
        }
        var urls = listening.makeAsyncIterator()
        guard let url = await urls.next() else {
            try await task.value
            throw ConfigurationError("embedded node \(request.index) stopped before it listened")
        }
        return EmbeddedNode(nodeId: node.nodeId, publicKey: node.publicKey, url: url) {
            task.cancel()
            _ = await task.result
        }
    }
}
