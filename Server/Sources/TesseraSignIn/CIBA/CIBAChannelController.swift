import Hummingbird
import TesseraCore

/// Tessera as another identity server's CIBA authentication channel: `POST /v1/ciba/channel/{clientKey}` (the other
/// server's bearer JWT; answers 201 with no body, as Keycloak expects) and the admin routes of its settings.
package struct CIBAChannelController<Context: TesseraContext> {
    package let channel: CIBAChannelService
    package let bodyLimit: Int

    package init(channel: CIBAChannelService, bodyLimit: Int) {
        self.channel = channel
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to router: Router<Context>) {
        router.post("v1/ciba/channel/{clientKey}") { request, context in
            var request = request
            let clients = channel.oidc.clients
            guard let client = try? await clients.client(clientKey: try context.parameters.require("clientKey")), client.enabled else {
                throw AppError.clientSecretInvalid(detail: "This client is no authentication channel")
            }
            let body = try await request.decodeJSON(CIBAChannelRequest.self, limit: bodyLimit)
            try await channel.request(client: client, authorization: request.headers[.authorization], body: body)
            return Response(status: .created, headers: [.cacheControl: "no-store"])
        }
    }

    /// `GET`/`PUT`/`DELETE /v1/admin/clients/{clientKey}/ciba/channel` (admin token).
    package func addAdminRoutes(to admin: RouterGroup<Context>) {
        let clients = channel.oidc.clients
        admin.get("clients/{clientKey}/ciba/channel") { _, context in
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            return try Response.json(try await channel.settings(client: client))
        }
        admin.put("clients/{clientKey}/ciba/channel") { request, context in
            var request = request
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            let settings = try await request.decodeJSON(CIBAChannelSettings.self, limit: bodyLimit)
            return try Response.json(try await channel.setSettings(settings, client: client))
        }
        admin.delete("clients/{clientKey}/ciba/channel") { _, context in
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            try await channel.deleteSettings(client: client)
            return Response(status: .noContent)
        }
    }
}
