import Hummingbird
import TesseraCore

/// The admin HTTP API (admin token): clients.
struct AdminController<Context: TesseraContext> {
    let clients: ClientService
    let bodyLimit: Int

    struct CreateClientRequest: Decodable {
        var name: String
        var bundleIds: [String]
    }

    struct ClientList: Encodable {
        var clients: [Client]
    }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("clients", use: list)
        group.post("clients", use: create)
        group.post("clients/{clientKey}/disable", use: disable)
        group.post("clients/{clientKey}/enable", use: enable)
        group.post("clients/{clientKey}/rotate-secret", use: rotate)
    }

    @Sendable func list(_ request: Request, context: Context) async throws -> Response {
        try .json(ClientList(clients: try await clients.list()))
    }

    @Sendable func create(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(CreateClientRequest.self, limit: bodyLimit)
        return try .json(try await clients.create(name: body.name, bundleIds: body.bundleIds), status: .created)
    }

    @Sendable func disable(_ request: Request, context: Context) async throws -> Response {
        try await clients.setEnabled(clientKey: try context.parameters.require("clientKey"), false)
        return Response(status: .noContent)
    }

    @Sendable func enable(_ request: Request, context: Context) async throws -> Response {
        try await clients.setEnabled(clientKey: try context.parameters.require("clientKey"), true)
        return Response(status: .noContent)
    }

    @Sendable func rotate(_ request: Request, context: Context) async throws -> Response {
        try .json(try await clients.rotateSecret(clientKey: try context.parameters.require("clientKey")))
    }
}

/// Requires the admin token on every admin route.
struct AdminMiddleware<Context: TesseraContext>: RouterMiddleware {
    let authenticator: AdminAuthenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await authenticator.verify(authorization: request.headers[.authorization])
        return try await next(request, context)
    }
}
