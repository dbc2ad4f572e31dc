import Foundation

/// Starts the zero-config embedded verifier nodes of `tessera serve`.
///
/// The server never runs a node itself, so its process never loads a node's private key: it asks a
/// launcher to start each node (the CLI starts `tessera node` child processes listening on loopback)
/// and then talks to every node, embedded or not, over HTTP with the same signed calls. Tests supply
/// a launcher that serves the node in the test process.
public protocol EmbeddedNodeLauncher: Sendable {
    /// Starts one node and returns once it listens.
    func launch(_ request: EmbeddedNodeRequest) async throws -> EmbeddedNode
}

/// What an embedded node is started with.
public struct EmbeddedNodeRequest: Sendable {
    /// 1-based, stable: the node is named `embedded-<index>`.
    public var index: Int
    /// The node's own directory (its key and registry), outside the server's data directory.
    public var directory: String
    /// The server's node-control public key the node must trust (P-256, X9.63, base64).
    public var serverKey: String
    /// A PEM file of App Attest roots the node trusts instead of Apple's (the server's `appAttest.roots`, tests only);
    /// nil: Apple's root.
    public var appAttestRoots: String?

    /// A request with these members.
    public init(index: Int, directory: String, serverKey: String, appAttestRoots: String? = nil) {
        self.index = index
        self.directory = directory
        self.serverKey = serverKey
        self.appAttestRoots = appAttestRoots
    }
}

/// A running embedded node as the server knows it: public facts and a way to stop it.
public struct EmbeddedNode: Sendable {
    /// The node's ID.
    public var nodeId: String
    /// The node's Ed25519 public key (raw, base64).
    public var publicKey: String
    /// Where it listens (`http://127.0.0.1:<port>`).
    public var url: String
    /// Stops the node (SIGTERM for a child process) and waits for it.
    public var stop: @Sendable () async -> Void

    /// A node with these members.
    public init(nodeId: String, publicKey: String, url: String, stop: @escaping @Sendable () async -> Void) {
        self.nodeId = nodeId
        self.publicKey = publicKey
        self.url = url
        self.stop = stop
    }
}
