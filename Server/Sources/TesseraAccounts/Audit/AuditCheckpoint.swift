import Crypto
import Foundation

/// A signed statement "the chain's hash at `seq` was `hash`, at `time`", written periodically by
/// ``AuditCheckpointService`` with the deployment's Ed25519 audit key.
public struct AuditCheckpoint: Codable, Sendable, Equatable {
    public var seq: Int64
    public var hash: String
    public var time: Int64
    /// The signing key's id (``AuditChain/keyId(of:)``).
    public var keyId: String
    /// Ed25519 signature over ``AuditChain/checkpointMessage(seq:hash:time:)``, base64.
    public var signature: String

    public init(seq: Int64, hash: String, time: Int64, keyId: String, signature: String) {
        self.seq = seq
        self.hash = hash
        self.time = time
        self.keyId = keyId
        self.signature = signature
    }
}

/// `GET /v1/admin/audit/checkpoints`.
public struct AuditCheckpointList: Codable, Sendable {
    public var checkpoints: [AuditCheckpoint]

    public init(checkpoints: [AuditCheckpoint]) { self.checkpoints = checkpoints }
}

/// `GET /v1/admin/audit/key`: the public half of the audit key.
public struct AuditPublicKey: Codable, Sendable, Equatable {
    public var algorithm: String
    public var keyId: String
    /// The 32-byte Ed25519 public key, base64.
    public var publicKey: String

    public init(keyId: String, publicKey: String) {
        algorithm = "Ed25519"
        self.keyId = keyId
        self.publicKey = publicKey
    }
}
