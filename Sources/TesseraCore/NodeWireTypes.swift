import Foundation

/// What the server tells a node about one device: its keys, or that it is revoked.
/// `PUT /v1/node/devices/{deviceId}`, signed by the server's node-control key.
public struct NodeDeviceRecord: Codable, Sendable, Equatable {
    /// The device's ID.
    public var deviceId: String
    /// The app client the device belongs to.
    public var clientId: String
    /// The user the device belongs to.
    public var userId: String
    /// P-256 device key, X9.63 base64.
    public var deviceKey: String
    /// P-256 user-verification key, X9.63 base64.
    public var userVerificationKey: String
    /// `active` or `revoked`.
    public var status: String
    /// The device's App Attest attestation, for the node to verify itself (nil: the device has none).
    public var appAttest: NodeAppAttestEvidence?
    /// Whether the device's client requires App Attest: the node then attests the device's logins only with an
    /// attestation it verified (nil: not required).
    public var appAttestRequired: Bool?

    /// A record with these members.
    public init(
        deviceId: String, clientId: String, userId: String, deviceKey: String, userVerificationKey: String, status: String,
        appAttest: NodeAppAttestEvidence? = nil, appAttestRequired: Bool? = nil
    ) {
        self.deviceId = deviceId
        self.clientId = clientId
        self.userId = userId
        self.deviceKey = deviceKey
        self.userVerificationKey = userVerificationKey
        self.status = status
        self.appAttest = appAttest
        self.appAttestRequired = appAttestRequired
    }

    /// A digest of the two keys, the part a receipt vouches for (base64url SHA-256).
    public var keysDigest: String { MessageSignature.thumbprint(ofX963: Data("\(deviceKey)\n\(userVerificationKey)".utf8)) }
}

/// A node's signed receipt for a stored device record.
public struct NodeReceipt: Codable, Sendable, Equatable {
    /// The node that signed.
    public var nodeId: String
    /// The device the receipt is for.
    public var deviceId: String
    /// The status the node now holds (a revoked device stays revoked even if an old enrolment is replayed).
    public var status: String
    /// ``NodeDeviceRecord/keysDigest`` of the keys the node holds.
    public var keysDigest: String
    /// When the node signed, milliseconds since 1970.
    public var signedAt: Int64
    /// Ed25519 over ``AuthStatement/receipt(nodeId:deviceId:status:keysDigest:signedAt:)``, base64.
    public var signature: String

    /// A receipt with these members.
    public init(nodeId: String, deviceId: String, status: String, keysDigest: String, signedAt: Int64, signature: String) {
        self.nodeId = nodeId
        self.deviceId = deviceId
        self.status = status
        self.keysDigest = keysDigest
        self.signedAt = signedAt
        self.signature = signature
    }
}

/// `POST /v1/node/attest`: the device's signed challenge, forwarded by the server.
public struct NodeAttestRequest: Codable, Sendable, Equatable {
    /// The authentication channel.
    public var channelId: String
    /// The device that signed.
    public var deviceId: String
    /// The channel's challenge.
    public var challenge: String
    /// The device's ECDSA P-256 signature (raw r‖s, base64) over ``AuthStatement/challenge(channelId:deviceId:challenge:)``.
    public var challengeSignature: String

    /// A request with these members.
    public init(channelId: String, deviceId: String, challenge: String, challengeSignature: String) {
        self.channelId = channelId
        self.deviceId = deviceId
        self.challenge = challenge
        self.challengeSignature = challengeSignature
    }
}

/// A node's Ed25519 attestation that the device signed the channel's challenge.
public struct NodeAttestation: Codable, Sendable, Equatable {
    /// The node that signed.
    public var nodeId: String
    /// When the node signed, milliseconds since 1970.
    public var signedAt: Int64
    /// Ed25519 over ``AuthStatement/attestation(nodeId:channelId:deviceId:challenge:signedAt:appAttested:)``, base64.
    public var signature: String
    /// Whether the node holds an App Attest attestation of the device that it verified itself (signed with the
    /// rest; nil: it holds none).
    public var appAttested: Bool?

    /// An attestation with these members.
    public init(nodeId: String, signedAt: Int64, signature: String, appAttested: Bool? = nil) {
        self.nodeId = nodeId
        self.signedAt = signedAt
        self.signature = signature
        self.appAttested = appAttested
    }
}

/// `GET /healthz` of a node: who it is.
public struct NodeInfo: Codable, Sendable, Equatable {
    /// The node's ID (``nodeId(publicKey:)``).
    public var nodeId: String
    /// Ed25519 public key, raw 32 bytes, base64.
    public var publicKey: String
    /// How many devices its registry holds.
    public var devices: Int

    /// An info with these members.
    public init(nodeId: String, publicKey: String, devices: Int) {
        self.nodeId = nodeId
        self.publicKey = publicKey
        self.devices = devices
    }

    /// `nd_` and the first 16 characters of the base64url SHA-256 of the raw Ed25519 public key:
    /// derived from the key, so a node cannot be impersonated by reusing its name.
    public static func nodeId(publicKey raw: Data) -> String {
        "nd_" + MessageSignature.thumbprint(ofX963: raw).prefix(16)
    }
}

/// `POST /v1/node/devices`: several device records in one signed call (at most
/// ``NodeDeviceBatch/maxRecords``), stored by the node in one transaction.
public struct NodeDeviceBatch: Codable, Sendable, Equatable {
    /// The most records one call may carry (a batch stays well under the node's 64 KiB body limit).
    public static let maxRecords = 64
    /// The records, each as ``NodeDeviceRecord`` for `PUT /v1/node/devices/{deviceId}`.
    public var records: [NodeDeviceRecord]

    /// A batch of these records.
    public init(records: [NodeDeviceRecord]) { self.records = records }
}

/// What a node did with one record of a ``NodeDeviceBatch``: a receipt, or the problem code and
/// title it would have answered for that record alone.
public struct NodeStoreOutcome: Codable, Sendable, Equatable {
    /// The record's device.
    public var deviceId: String
    /// The signed receipt, when the node stored the record.
    public var receipt: NodeReceipt?
    /// The refusal's code, when it did not.
    public var code: Int?
    /// The refusal's title, when it did not.
    public var title: String?

    /// An outcome with these members.
    public init(deviceId: String, receipt: NodeReceipt? = nil, code: Int? = nil, title: String? = nil) {
        self.deviceId = deviceId
        self.receipt = receipt
        self.code = code
        self.title = title
    }
}

/// The answer to a ``NodeDeviceBatch``: one outcome per record, in the batch's order.
public struct NodeStoreBatchResult: Codable, Sendable, Equatable {
    /// One outcome per record.
    public var outcomes: [NodeStoreOutcome]

    /// A result with these outcomes.
    public init(outcomes: [NodeStoreOutcome]) { self.outcomes = outcomes }
}
