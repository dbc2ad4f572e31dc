import AsyncHTTPClient
import Crypto
import Foundation
import NIOSSL
import Synchronization
import TesseraCore

/// A verifier node as the server knows it.
public struct NodeEntry: Codable, Sendable, Equatable {
    public var nodeId: String
    public var name: String
    /// `http(s)://host:port` of a `tessera node`, or `embedded:N` for one of the server's embedded
    /// nodes (a `tessera node` child process on loopback, whose port changes at every start).
    public var url: String
    /// Ed25519 public key (raw, base64) the node's receipts and attestations are checked with.
    public var publicKey: String
    public var enabled: Bool
    public var createdAt: Int64
    /// Device changes queued for this node and not yet acknowledged with a receipt (listing only).
    public var pendingDevices: Int?
    /// Why the last delivery failed, while changes are pending (listing only).
    public var lastError: String?

    package init(
        nodeId: String,
        name: String,
        url: String,
        publicKey: String,
        enabled: Bool,
        createdAt: Int64,
        pendingDevices: Int? = nil,
        lastError: String? = nil
    ) {
        self.nodeId = nodeId
        self.name = name
        self.url = url
        self.publicKey = publicKey
        self.enabled = enabled
        self.createdAt = createdAt
        self.pendingDevices = pendingDevices
        self.lastError = lastError
    }
}

/// The nodes this server may ask, with a client for each, and which of them failed lately.
/// Read from the `nodes` table (refreshed every few seconds, and at once after an admin change here);
/// embedded nodes are added by this process at start, and reached over HTTP like any other.
package final class NodeDirectory: Sendable {
    package struct Node: Sendable {
        package var entry: NodeEntry
        package var publicKey: Curve25519.Signing.PublicKey
        package var client: any NodeClient

        package init(entry: NodeEntry, publicKey: Curve25519.Signing.PublicKey, client: any NodeClient) {
            self.entry = entry
            self.publicKey = publicKey
            self.client = client
        }

        /// Whether `signature` (base64, as a node sends it) is this node's Ed25519 signature over `statement`,
        /// from a node that names itself `claimedId`.
        package func signed(_ signature: String, as claimedId: String, over statement: Data) -> Bool {
            claimedId == entry.nodeId && Data(base64Encoded: signature).map { publicKey.isValidSignature($0, for: statement) } == true
        }
    }

    package let repository: any NodeRepository
    package let httpClient: HTTPClient
    /// TLS settings for https node URLs (`nodes.caFile`); nil: AsyncHTTPClient's defaults.
    package let tlsConfiguration: TLSConfiguration?
    package let signingKey: P256.Signing.PrivateKey
    package let timeout: Duration
    package let clock: WallClock
    /// What changes while the server runs: this process's embedded nodes, the nodes last read, when,
    /// and which failed lately.
    private struct State {
        var embedded: [String: HTTPNodeClient] = [:]
        var nodes: [Node] = []
        var loadedAt: Int64 = 0
        var failedAt: [String: Int64] = [:]
    }

    private let state = Mutex(State())
    /// A node that failed within this window is asked only when too few others are available.
    package let penaltyMillis: Int64 = 10_000

    package init(
        repository: any NodeRepository, httpClient: HTTPClient, tlsConfiguration: TLSConfiguration? = nil, signingKey: P256.Signing.PrivateKey,
        timeout: Duration, clock: WallClock
    ) {
        self.repository = repository
        self.httpClient = httpClient
        self.tlsConfiguration = tlsConfiguration
        self.signingKey = signingKey
        self.timeout = timeout
        self.clock = clock
    }

    /// The public half of the key the server signs node calls with: what `tessera node --server-key` needs.
    package var serverKey: String { signingKey.publicKey.x963Representation.base64EncodedString() }

    /// How long an instance's embedded nodes count as running after its last heartbeat.
    package static let embeddedLiveness: Int64 = 30_000

    /// Registers this process's embedded nodes. Embedded nodes serve the one instance that runs them:
    /// when another instance's embedded nodes showed a sign of life within ``embeddedLiveness``, this
    /// start is refused with a message saying what to do instead; older ones (an instance that is
    /// gone) are disabled.
    package func registerEmbedded(_ started: [EmbeddedNode]) async throws {
        let now = clock.now()
        do {
            try await repository.registerEmbedded(started, now: now, liveness: Self.embeddedLiveness)
        } catch let inUse as EmbeddedNodesInUse {
            let wait = max(1, (Self.embeddedLiveness - inUse.lastSeen + 999) / 1000)
            throw ConfigurationError(
                """
                another Tessera instance runs embedded verifier nodes on this database (last seen \(max(0, inUse.lastSeen / 1000)) s ago). \
                Embedded nodes serve one instance only, and every instance on a shared database needs the same nodes. \
                Start this instance with --nodes-embedded 0 and register remote nodes (`tessera node`, then `tessera admin node add`), \
                or stop the other instance (its nodes are taken over \(wait) s after it stopped).
                """
            )
        }
        let clients = started.map { node in
            HTTPNodeClient(nodeId: node.nodeId, baseURL: node.url, httpClient: httpClient, signingKey: signingKey, timeout: timeout)
        }
        let byId = Dictionary(uniqueKeysWithValues: clients.map { ($0.nodeId, $0) })
        state.withLock { $0.embedded = byId }
        try await reload()
    }

    /// Tells other instances that this one's embedded nodes still run (see ``registerEmbedded(_:)``).
    package func heartbeat() async throws {
        try await repository.heartbeat(embedded: state.withLock { Array($0.embedded.keys) }, at: clock.now())
    }

    /// Marks this instance's embedded nodes as stopped, so another instance may take over at once.
    package func stopHeartbeat() async {
        _ = try? await repository.heartbeat(embedded: state.withLock { Array($0.embedded.keys) }, at: 0)
    }

    /// Re-reads the enabled nodes.
    package func reload() async throws {
        var loaded: [Node] = []
        for entry in try await repository.enabled() {
            guard let raw = Data(base64Encoded: entry.publicKey), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { continue }
            let client: (any NodeClient)?
            if entry.url.hasPrefix("embedded:") {
                client = state.withLock { $0.embedded[entry.nodeId] }
            } else {
                client = HTTPNodeClient(
                    nodeId: entry.nodeId, baseURL: entry.url, httpClient: httpClient, tlsConfiguration: tlsConfiguration, signingKey: signingKey,
                    timeout: timeout
                )
            }
            if let client { loaded.append(Node(entry: entry, publicKey: key, client: client)) }
        }
        let now = clock.now()
        state.withLock {
            $0.nodes = loaded
            $0.loadedAt = now
        }
    }

    /// The nodes this instance can reach now (refreshed from the database at most every 5 s).
    package func current() async throws -> [Node] {
        let now = clock.now()
        let (list, stale) = state.withLock { ($0.nodes, now - $0.loadedAt > 5_000) }
        if stale { try await reload(); return state.withLock { $0.nodes } }
        return list
    }

    package func node(_ id: String) async throws -> Node? { try await current().first { $0.entry.nodeId == id } }

    /// The node, re-reading the table once when this instance does not know it (at most once a second).
    package func node(_ id: String, refreshing: Bool) async throws -> Node? {
        if let known = try await node(id) { return known }
        let now = clock.now()
        guard refreshing, state.withLock({ now - $0.loadedAt >= 1_000 || now < $0.loadedAt }) else { return nil }
        try await reload()
        return state.withLock { state in state.nodes.first { $0.entry.nodeId == id } }
    }

    /// Up to `count` nodes, healthy ones first, in random order among equals.
    package func select(_ count: Int) async throws -> [Node] {
        let all = try await current().shuffled()
        let now = clock.now()
        let penalty = penaltyMillis
        let recent = state.withLock { state in state.failedAt.filter { now - $0.value < penalty } }
        let healthy = all.filter { recent[$0.entry.nodeId] == nil }
        let penalised = all.filter { recent[$0.entry.nodeId] != nil }
        return Array((healthy + penalised).prefix(count))
    }

    package func markFailed(_ id: String) { let now = clock.now(); state.withLock { $0.failedAt[id] = now } }
    package func markHealthy(_ id: String) { state.withLock { _ = $0.failedAt.removeValue(forKey: id) } }
}
