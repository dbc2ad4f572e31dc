import Hummingbird
import TesseraCore

/// The admin API's passkey routes: a user's passkeys, and revoking one.
package struct PasskeyAdminController<Context: TesseraContext> {
    package let passkeys: PasskeyService
    package let clients: ClientService
    package let users: UserAdminService

    package init(passkeys: PasskeyService, clients: ClientService, users: UserAdminService) {
        self.passkeys = passkeys
        self.clients = clients
        self.users = users
    }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.get("users/{userKey}/passkeys") { request, context in
            let clientKey = try AdminController<Context>.clientKey(request)
            let userId = try await users.userId(clientKey: clientKey, userKey: try context.parameters.require("userKey"))
            return try Response.json(try await passkeys.list(userId: userId, client: try await clients.client(clientKey: clientKey)))
        }
        group.delete("passkeys/{passkeyId}") { _, context in
            try await passkeys.revoke(id: try context.parameters.require("passkeyId"), userId: nil, actor: "admin")
            return Response(status: .noContent)
        }
    }
}
