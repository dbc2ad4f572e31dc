import Hummingbird
import TesseraCore

/// The clients' own keys (`private_key_jwt`, CIBA `login_hint_token`) in the admin API.
extension OIDCController {
    /// `GET`/`PUT`/`DELETE /v1/admin/clients/{clientKey}/keys` (admin token).
    func addClientKeyRoutes(to admin: RouterGroup<Context>) {
        let keys = service.clientKeys, clients = service.clients, limit = bodyLimit
        admin.get("clients/{clientKey}/keys") { _, context in
            try Response.json(try await keys.settings(client: try await clients.client(clientKey: try context.parameters.require("clientKey"))))
        }
        admin.put("clients/{clientKey}/keys") { request, context in
            var request = request
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            let settings = try await request.decodeJSON(ClientKeySettings.self, limit: limit)
            return try Response.json(try await keys.setSettings(settings, client: client))
        }
        admin.delete("clients/{clientKey}/keys") { _, context in
            try await keys.deleteSettings(client: try await clients.client(clientKey: try context.parameters.require("clientKey")))
            return Response(status: .noContent)
        }
    }
}
