import Crypto
import Foundation
import TesseraCore

/// Admin management of verifier nodes: add a `tessera node` by URL and public key, list, disable.
public struct NodeAdminService: Sendable {
    package let repository: any NodeRepository
    package let directory: NodeDirectory
    package let clock: WallClock

    package init(repository: any NodeRepository, directory: NodeDirectory, clock: WallClock) {
        self.repository = repository
        self.directory = directory
        self.clock = clock
    }

    /// The public key `tessera node --server-key` must be given.
    public var serverKey: String { directory.serverKey }

    /// Every node, with how many device changes still wait for its receipt and the last delivery error.
    public func list() async throws -> [NodeEntry] { try await repository.list() }

    /// Registers a node and queues every active device for it.
    public func add(url: String, publicKey: String, name: String?) async throws -> NodeEntry {
        let trimmed = url.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard let parsed = URL(string: trimmed), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil, trimmed.count <= 500 else {
            throw AppError.invalidField("url", "url must be http(s)://host:port of a tessera node")
        }
        guard let raw = Data(base64Encoded: publicKey.trimmingCharacters(in: .whitespaces)), raw.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil
        else { throw AppError.invalidField("publicKey", "publicKey must be the node's Ed25519 public key (32 bytes, base64), as `tessera node` prints it") }
        let id = NodeInfo.nodeId(publicKey: raw)
        let now = clock.now()
        let entry = NodeEntry(
            nodeId: id, name: name.flatMap { $0.isEmpty ? nil : $0 } ?? id, url: trimmed, publicKey: raw.base64EncodedString(), enabled: true, createdAt: now
        )
        guard entry.name.count <= 100 else { throw AppError.invalidField("name", "name must be at most 100 characters") }
        guard try await repository.insertRemote(entry) else {
            throw AppError.conflict("A node with this public key is already registered")
        }
        try await directory.reload()
        return entry
    }

    /// Enables or disables a node; enabling queues every active device again.
    public func setEnabled(nodeId: String, _ enabled: Bool) async throws {
        guard try await repository.setEnabled(nodeId: nodeId, enabled, now: clock.now()) else {
            throw AppError.nodeUnknown()
        }
        try await directory.reload()
    }
}
