import Hummingbird
import TesseraCore

/// CIBA Core 1.0's backchannel authentication endpoint (§7), authenticated as the token endpoint is.
extension OIDCController {
    /// `POST /oauth2/bc-authorize` (form; `client_secret_basic` or `client_secret_post`): `scope` with `openid`,
    /// exactly one of `login_hint`, `login_hint_token` and `id_token_hint`, optional `binding_message` and
    /// `requested_expiry`; answers `auth_req_id`, `expires_in` and `interval` (§7.3) or an OAuth error (§13).
    @Sendable package func backchannelAuthorize(_ request: Request, context: Context) async throws -> Response {
        let client: Client, form: [String: String]
        switch try await authenticatedForm(request) {
        case .success(let pair): (client, form) = pair
        case .failure(let error): return Self.oauthError(error, basic: true)
        }
        do {
            return Self.noStore(try Response.json(try await ciba.authenticate(client: client, form: form)))
        } catch let error as OIDCService.OAuthError {
            return Self.oauthError(error)
        }
    }

    /// `GET`/`PUT /v1/admin/clients/{clientKey}/ciba` (admin token): the client's CIBA delivery mode and notification endpoint.
    func addCIBAAdminRoutes(to admin: RouterGroup<Context>) {
        admin.get("clients/{clientKey}/ciba") { _, context in
            let client = try await service.clients.client(clientKey: try context.parameters.require("clientKey"))
            return try Response.json(try await ciba.settings(client: client))
        }
        admin.put("clients/{clientKey}/ciba") { request, context in
            var request = request
            let client = try await service.clients.client(clientKey: try context.parameters.require("clientKey"))
            let settings = try await request.decodeJSON(CIBAClientSettings.self, limit: bodyLimit)
            return try Response.json(try await ciba.setSettings(settings, client: client))
        }
    }
}
