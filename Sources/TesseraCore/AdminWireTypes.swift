/// `POST /v1/admin/clients` body: a new client (app).
public struct CreateClientRequest: Codable, Sendable, Equatable {
    /// Display name.
    public var name: String
    /// Allowed bundle identifiers.
    public var bundleIds: [String]

    /// Creates the body.
    public init(name: String, bundleIds: [String]) {
        self.name = name
        self.bundleIds = bundleIds
    }
}

/// `POST /v1/admin/nodes` body: registers a `tessera node`.
public struct AddNodeRequest: Codable, Sendable, Equatable {
    /// The node's URL, `http(s)://host:port`.
    public var url: String
    /// The node's Ed25519 public key, as `tessera node` prints it.
    public var publicKey: String
    /// A name.
    public var name: String?

    /// Creates the body.
    public init(url: String, publicKey: String, name: String? = nil) {
        self.url = url
        self.publicKey = publicKey
        self.name = name
    }
}

/// `POST /v1/admin/totp/reset` body: clears a user's failed TOTP verifications.
public struct TOTPResetRequest: Codable, Sendable, Equatable {
    /// Client key of the app.
    public var clientKey: String
    /// User key.
    public var userKey: String

    /// Creates the body.
    public init(clientKey: String, userKey: String) {
        self.clientKey = clientKey
        self.userKey = userKey
    }
}

/// `POST /v1/admin/keys/rotate` answer: the new result-token signing key.
public struct RotatedKey: Codable, Sendable, Equatable {
    /// The new key's `kid`.
    public var kid: String

    /// Creates the answer.
    public init(kid: String) { self.kid = kid }
}
