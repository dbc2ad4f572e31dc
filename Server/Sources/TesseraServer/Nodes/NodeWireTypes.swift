import Foundation

/// What the server tells a node about one device: its keys, or that it is revoked.
/// `PUT /v1/node/devices/{deviceId}`, signed by the server's node-control key.
struct NodeDeviceRecord: Codable, Sendable, Equatable {
    var deviceId: String
    var clientId: String
    var userId: String
    /// P-256 device key, X9.63 base64.
    var deviceKey: String
    /// P-256 user-verification key, X9.63 base64.
    var userVerificationKey: String
    /// `active` or `revoked`.
    var status: String

    /// A digest of the two keys, the part a receipt vouches for.
    var keysDigest: String { MessageSignatureDigest.of("\(deviceKey)\n\(userVerificationKey)") }
}

/// A node's signed receipt for a stored device record.
struct NodeReceipt: Codable, Sendable, Equatable {
    var nodeId: String
    var deviceId: String
    /// The status the node now holds (a revoked device stays revoked even if an old enrolment is replayed).
    var status: String
    var keysDigest: String
    var signedAt: Int64
    /// Ed25519 over ``AuthStatement/receipt(nodeId:deviceId:status:keysDigest:signedAt:)``, base64.
    var signature: String
}

/// `POST /v1/node/attest`: the device's signed challenge, forwarded by the server.
struct NodeAttestRequest: Codable, Sendable, Equatable {
    var channelId: String
    var deviceId: String
    var challenge: String
    var challengeSignature: String
}

/// A node's Ed25519 attestation that the device signed the channel's challenge.
struct NodeAttestation: Codable, Sendable, Equatable {
    var nodeId: String
    var signedAt: Int64
    /// Ed25519 over ``AuthStatement/attestation(nodeId:channelId:deviceId:challenge:signedAt:)``, base64.
    var signature: String
}

/// `GET /healthz` of a node: who it is.
struct NodeInfo: Codable, Sendable, Equatable {
    var nodeId: String
    /// Ed25519 public key, raw 32 bytes, base64.
    var publicKey: String
    var devices: Int
}
