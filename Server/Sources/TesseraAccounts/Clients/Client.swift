/// An app registered with Tessera: a public client key embedded in the app, an allow-list of
/// bundle identifiers, and a secret (stored only as a keyed hash) for the app's backend.
public struct Client: Sendable, Codable, Equatable {
    public var id: String
    public var clientKey: String
    public var name: String
    public var bundleIds: [String]
    public var enabled: Bool
    public var createdAt: Int64

    package init(
        id: String,
        clientKey: String,
        name: String,
        bundleIds: [String],
        enabled: Bool,
        createdAt: Int64
    ) {
        self.id = id
        self.clientKey = clientKey
        self.name = name
        self.bundleIds = bundleIds
        self.enabled = enabled
        self.createdAt = createdAt
    }
}

/// A client together with its secret, as returned once at creation or rotation.
public struct ClientWithSecret: Sendable, Codable {
    public var client: Client
    public var clientSecret: String
}
