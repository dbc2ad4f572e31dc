import Foundation

/// What the server tells a node about one passkey (W3C WebAuthn credential): its public key and
/// where it may be used, or that it is revoked. `POST /v1/node/passkeys`, signed by the server's
/// node-control key; the node answers each record with a ``NodeReceipt`` whose `deviceId` is the
/// passkey's ID and whose signature is over ``AuthStatement/passkeyReceipt(nodeId:passkeyId:status:keysDigest:signedAt:)``.
public struct NodePasskeyRecord: Codable, Sendable, Equatable {
    /// The passkey's ID (`pk_…`).
    public var passkeyId: String
    /// The app client it belongs to.
    public var clientId: String
    /// The user it belongs to.
    public var userId: String
    /// The WebAuthn credential ID, base64url.
    public var credentialId: String
    /// The credential public key (COSE_Key), base64url.
    public var publicKey: String
    /// The user's opaque handle at the client, base64url (an assertion's `userHandle` must match it).
    public var userHandle: String
    /// The WebAuthn relying party ID it was created for.
    public var rpId: String
    /// The origins a ceremony may run on.
    public var origins: [String]
    /// `active` or `revoked`.
    public var status: String

    /// A record with these members.
    public init(
        passkeyId: String, clientId: String, userId: String, credentialId: String, publicKey: String, userHandle: String, rpId: String,
        origins: [String], status: String
    ) {
        self.passkeyId = passkeyId
        self.clientId = clientId
        self.userId = userId
        self.credentialId = credentialId
        self.publicKey = publicKey
        self.userHandle = userHandle
        self.rpId = rpId
        self.origins = origins
        self.status = status
    }

    /// A digest of what the node checks assertions with, the part a receipt vouches for (base64url SHA-256).
    public var keysDigest: String {
        MessageSignature.thumbprint(ofX963: Data("\(credentialId)\n\(publicKey)\n\(userHandle)\n\(rpId)\n\(origins.sorted().joined(separator: " "))".utf8))
    }
}

/// `POST /v1/node/passkeys`: several passkey records in one signed call (at most ``NodeDeviceBatch/maxRecords``).
public struct NodePasskeyBatch: Codable, Sendable, Equatable {
    /// The records.
    public var records: [NodePasskeyRecord]

    /// A batch of these records.
    public init(records: [NodePasskeyRecord]) { self.records = records }
}

/// `POST /v1/node/passkeys/attest`: a passkey assertion (W3C WebAuthn Level 3 §7.2) forwarded by the server
/// for the node to verify on its own: signature with the public key it holds, RP ID, origin, challenge,
/// flags, counter.
public struct NodePasskeyAttestRequest: Codable, Sendable, Equatable {
    /// The passkey the assertion is for.
    public var passkeyId: String
    /// The ceremony's challenge, base64url: 8 bytes of the server's time (milliseconds since 1970, big-endian)
    /// and 24 random bytes. A node refuses a challenge older than its window or seen before.
    public var challenge: String
    /// The assertion's `clientDataJSON`, base64url.
    public var clientDataJSON: String
    /// The assertion's `authenticatorData`, base64url.
    public var authenticatorData: String
    /// The assertion's signature, base64url.
    public var signature: String
    /// The assertion's `userHandle`, base64url, if the authenticator gave one.
    public var userHandle: String?
    /// Whether the UV flag is required.
    public var requireUserVerification: Bool

    /// A request with these members.
    public init(
        passkeyId: String, challenge: String, clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?,
        requireUserVerification: Bool
    ) {
        self.passkeyId = passkeyId
        self.challenge = challenge
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.requireUserVerification = requireUserVerification
    }
}

/// A node's Ed25519 attestation that it verified a passkey assertion.
public struct NodePasskeyAttestation: Codable, Sendable, Equatable {
    /// The node that signed.
    public var nodeId: String
    /// The signature counter the node now holds for the passkey.
    public var signCount: Int64
    /// When the node signed, milliseconds since 1970.
    public var signedAt: Int64
    /// Ed25519 over ``AuthStatement/passkeyAttestation(nodeId:passkeyId:challenge:signCount:signedAt:)``, base64.
    public var signature: String

    /// An attestation with these members.
    public init(nodeId: String, signCount: Int64, signedAt: Int64, signature: String) {
        self.nodeId = nodeId
        self.signCount = signCount
        self.signedAt = signedAt
        self.signature = signature
    }
}
