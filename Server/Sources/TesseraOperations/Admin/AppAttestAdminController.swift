import Hummingbird
import TesseraCore

/// The admin API's App Attest settings of a client (issue 41): `GET`/`PUT /v1/admin/clients/{clientKey}/app-attest`
/// (``AppAttestSettings``: policy, team ID, bundle ID, environment). A change is audited as
/// `admin.client.app_attest_set` (``AdminAuditMiddleware``).
package struct AppAttestAdminController<Context: TesseraContext> {
    /// The clients' App Attest settings.
    package let settings: AppAttestSettingsService
    /// The clients, by key (404, 1102, for an unknown one).
    package let clients: ClientService
    /// The largest body read.
    package let bodyLimit: Int

    /// A controller.
    package init(settings: AppAttestSettingsService, clients: ClientService, bodyLimit: Int) {
        self.settings = settings
        self.clients = clients
        self.bodyLimit = bodyLimit
    }

    /// Adds the routes to `group` (`/v1/admin`).
    package func addRoutes(to group: RouterGroup<Context>) {
        group.get("clients/{clientKey}/app-attest") { _, context in
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            return try Response.json(try await settings.settings(client: client))
        }
        group.put("clients/{clientKey}/app-attest") { request, context in
            var request = request
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            let body = try await request.decodeJSON(AppAttestSettings.self, limit: bodyLimit)
            return try Response.json(try await settings.set(body, client: client))
        }
    }
}
