import Hummingbird
import TesseraCore

/// `PUT/GET /v1/admin/clients/{clientKey}/push` (admin token): a client's APNs or FCM settings,
/// a property of the client as its OpenID Connect settings are (empty when none; `off: true`
/// removes them). GET and PUT answer without any private key.
package struct PushAdminController<Context: TesseraContext> {
    package let push: PushAdminService
    package let bodyLimit: Int

    package init(push: PushAdminService, bodyLimit: Int) {
        self.push = push
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.put("clients/{clientKey}/push") { request, context in
            var request = request
            let update = try await request.decodeJSON(PushSettingsUpdate.self, limit: bodyLimit)
            return try Response.json(try await push.set(update, clientKey: try context.parameters.require("clientKey")))
        }
        group.get("clients/{clientKey}/push") { _, context in
            try Response.json(try await push.view(clientKey: try context.parameters.require("clientKey")))
        }
    }
}
