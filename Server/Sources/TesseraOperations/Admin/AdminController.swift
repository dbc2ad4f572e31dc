import Hummingbird
import TesseraCore

/// The admin HTTP API (admin token): clients, users and devices, verifier nodes, result-token keys, TOTP lock-outs.
package struct AdminController<Context: TesseraContext> {
    package let clients: ClientService
    package let nodes: NodeAdminService
    package let users: UserAdminService
    package let tokens: ResultTokens
    package let totp: TOTPVerifier
    package let sessions: SessionService
    package let authenticators: AuthenticatorService
    package let bodyLimit: Int

    package init(
        clients: ClientService,
        nodes: NodeAdminService,
        users: UserAdminService,
        tokens: ResultTokens,
        totp: TOTPVerifier,
        sessions: SessionService,
        authenticators: AuthenticatorService,
        bodyLimit: Int
    ) {
        self.clients = clients
        self.nodes = nodes
        self.users = users
        self.tokens = tokens
        self.totp = totp
        self.sessions = sessions
        self.authenticators = authenticators
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.get("clients", use: list)
        group.post("clients", use: create)
        group.post("clients/{clientKey}/disable", use: disable)
        group.post("clients/{clientKey}/enable", use: enable)
        group.post("clients/{clientKey}/rotate-secret", use: rotate)
        group.get("nodes") { _, _ in try Response.json(AdminNodeList(serverKey: nodes.serverKey, nodes: try await nodes.list())) }
        group.post("nodes") { request, _ in
            var request = request
            let body = try await request.decodeJSON(AddNodeRequest.self, limit: bodyLimit)
            return try Response.json(try await nodes.add(url: body.url, publicKey: body.publicKey, name: body.name), status: .created)
        }
        group.post("nodes/{nodeId}/disable") { _, context in
            try await nodes.setEnabled(nodeId: try context.parameters.require("nodeId"), false)
            return Response(status: .noContent)
        }
        group.post("nodes/{nodeId}/enable") { _, context in
            try await nodes.setEnabled(nodeId: try context.parameters.require("nodeId"), true)
            return Response(status: .noContent)
        }
        group.get("users") { request, _ in
            let clientKey = try Self.clientKey(request)
            var limit = 50
            if let text = request.uri.queryParameters.get("limit") {
                guard let value = Int(text), (1...500).contains(value) else { throw AppError.invalidField("limit", "limit must be 1–500") }
                limit = value
            }
            let after = request.uri.queryParameters.get("after").map { String($0) }
            return try Response.json(try await users.list(clientKey: String(clientKey), limit: limit, after: after))
        }
        group.post("devices/{deviceId}/revoke") { _, context in
            try await users.revokeDevice(try context.parameters.require("deviceId"))
            return Response(status: .noContent)
        }
        group.get("clients/{clientKey}/policy") { _, context in
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            return try Response.json(try await authenticators.policies.policy(clientId: client.id))
        }
        group.put("clients/{clientKey}/policy") { request, context in
            var request = request
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            let policy = try await request.decodeJSON(ClientPolicy.self, limit: bodyLimit)
            try await authenticators.policies.set(policy, clientId: client.id)
            return try Response.json(try await authenticators.policies.policy(clientId: client.id))
        }
        group.get("users/{userKey}/sessions") { request, context in
            let userId = try await users.userId(clientKey: try Self.clientKey(request), userKey: try context.parameters.require("userKey"))
            return try Response.json(try await sessions.list(userId: userId, currentId: nil))
        }
        group.delete("sessions/{sessionId}") { _, context in
            try await sessions.revoke(id: try context.parameters.require("sessionId"), userId: nil, by: "admin")
            return Response(status: .noContent)
        }
        group.get("users/{userKey}/authenticators") { request, context in
            let userId = try await users.userId(clientKey: try Self.clientKey(request), userKey: try context.parameters.require("userKey"))
            return try Response.json(try await authenticators.list(userId: userId))
        }
        group.delete("authenticators/{authenticatorId}") { _, context in
            try await authenticators.delete(id: try context.parameters.require("authenticatorId"), deviceId: nil)
            return Response(status: .noContent)
        }
        group.post("keys/rotate") { _, _ in try Response.json(RotatedKey(kid: try await tokens.rotate())) }
        group.post("totp/reset") { request, _ in
            var request = request
            let body = try await request.decodeJSON(TOTPResetRequest.self, limit: bodyLimit)
            try await totp.reset(clientKey: body.clientKey, userKey: body.userKey)
            return Response(status: .noContent)
        }
    }

    /// The required `clientKey` query parameter.
    package static func clientKey(_ request: Request) throws -> String {
        guard let clientKey = request.uri.queryParameters.get("clientKey"), !clientKey.isEmpty else {
            throw AppError.fieldMissing("clientKey", "clientKey is required")
        }
        return String(clientKey)
    }

    @Sendable package func list(_ request: Request, context: Context) async throws -> Response {
        try .json(AdminClientList(clients: try await clients.list()))
    }

    @Sendable package func create(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(CreateClientRequest.self, limit: bodyLimit)
        return try .json(try await clients.create(name: body.name, bundleIds: body.bundleIds), status: .created)
    }

    @Sendable package func disable(_ request: Request, context: Context) async throws -> Response {
        try await clients.setEnabled(clientKey: try context.parameters.require("clientKey"), false)
        return Response(status: .noContent)
    }

    @Sendable package func enable(_ request: Request, context: Context) async throws -> Response {
        try await clients.setEnabled(clientKey: try context.parameters.require("clientKey"), true)
        return Response(status: .noContent)
    }

    @Sendable package func rotate(_ request: Request, context: Context) async throws -> Response {
        try .json(try await clients.rotateSecret(clientKey: try context.parameters.require("clientKey")))
    }
}

/// Requires the admin token on every admin route, or, for a call without `Authorization`, a signed-in
/// admin console's session cookie (with its CSRF token on state changes), whose calls are audited as
/// `admin:console`. The bearer path is the same with or without a console.
package struct AdminMiddleware<Context: TesseraContext>: RouterMiddleware {
    package let authenticator: AdminAuthenticator
    package var console: ConsoleSessions? = nil


    package init(

        authenticator: AdminAuthenticator,

        console: ConsoleSessions? = nil

    ) {

        self.authenticator = authenticator

        self.console = console

    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authorization = request.headers[.authorization]
        if authorization == nil, let console, ConsoleSessions.cookie(in: request) != nil {
            _ = try console.authorize(request)
            return try await AdminActor.$current.withValue("admin:console") { try await next(request, context) }
        }
        try await authenticator.verify(authorization: authorization)
        return try await next(request, context)
    }
}
