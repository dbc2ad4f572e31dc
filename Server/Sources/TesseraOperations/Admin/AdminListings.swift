/// `GET /v1/admin/clients` answer, written by the admin API and read by `tessera admin client list`.
public struct AdminClientList: Codable, Sendable, Equatable {
    /// Every client.
    public var clients: [Client]

    /// Creates the answer.
    public init(clients: [Client]) { self.clients = clients }
}

/// `GET /v1/admin/nodes` answer, written by the admin API and read by `tessera admin node …`.
public struct AdminNodeList: Codable, Sendable, Equatable {
    /// The key every `tessera node` must trust (`--server-key`).
    public var serverKey: String
    /// The registered nodes.
    public var nodes: [NodeEntry]

    /// Creates the answer.
    public init(serverKey: String, nodes: [NodeEntry]) {
        self.serverKey = serverKey
        self.nodes = nodes
    }
}
