import Hummingbird
import TesseraCore

/// The admin API's passkey routes: a user's passkeys, and revoking one; the apps a client associates with
/// the server's passkeys (`GET`/`PUT /v1/admin/clients/{clientKey}/passkeys/app-links`) and the authenticators it
/// accepts for new ones (`…/passkeys/attestation`).
package struct PasskeyAdminController<Context: TesseraContext> {
    package let passkeys: PasskeyService
    package let appLinks: PasskeyAppLinksService
    package let attestation: PasskeyAttestationService
    package let clients: ClientService
    package let users: UserAdminService
    package let bodyLimit: Int

    package init(
        passkeys: PasskeyService, appLinks: PasskeyAppLinksService, attestation: PasskeyAttestationService, clients: ClientService,
        users: UserAdminService, bodyLimit: Int
    ) {
        self.passkeys = passkeys
        self.appLinks = appLinks
        self.attestation = attestation
        self.clients = clients
        self.users = users
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.get("users/{userKey}/passkeys") { request, context in
            let clientKey = try AdminController<Context>.clientKey(request)
            let userId = try await users.userId(clientKey: clientKey, userKey: try context.parameters.require("userKey"))
            return try Response.json(try await passkeys.list(userId: userId, client: try await clients.client(clientKey: clientKey)))
        }
        group.get("clients/{clientKey}/passkeys/app-links") { _, context in
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            return try Response.json(try await appLinks.links(client: client))
        }
        group.put("clients/{clientKey}/passkeys/app-links") { request, context in
            var request = request
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            let links = try await request.decodeJSON(PasskeyAppLinks.self, limit: bodyLimit)
            return try Response.json(try await appLinks.set(links, client: client))
        }
        group.get("clients/{clientKey}/passkeys/attestation") { _, context in
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            return try Response.json(try await attestation.settings(client: client))
        }
        group.put("clients/{clientKey}/passkeys/attestation") { request, context in
            var request = request
            let client = try await clients.client(clientKey: try context.parameters.require("clientKey"))
            let settings = try await request.decodeJSON(PasskeyAttestationSettings.self, limit: bodyLimit)
            return try Response.json(try await attestation.set(settings, client: client))
        }
        group.delete("passkeys/{passkeyId}") { _, context in
            try await passkeys.revoke(id: try context.parameters.require("passkeyId"), userId: nil, actor: "admin")
            return Response(status: .noContent)
        }
    }
}
