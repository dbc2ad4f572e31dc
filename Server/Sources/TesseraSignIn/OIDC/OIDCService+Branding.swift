import Foundation
import TesseraCore

/// The hosted page's branding per client: display name and accent colour (in the OIDC settings) and
/// the logo, stored and served by Tessera.
extension OIDCService {
    /// How the page presents `client`.
    package func branding(of client: Client) async throws -> ClientBranding {
        ClientBranding(clientName: client.name, clientKey: client.clientKey, settings: try await repository.settings(clientId: client.id))
    }

    /// The logo of the client with `clientKey`, nil when it has none (or there is no such client).
    package func logo(clientKey: String) async throws -> ClientLogo? {
        guard clientKey.count <= 100, let client = try? await clients.client(clientKey: clientKey) else { return nil }
        return try await repository.logo(clientId: client.id)
    }

    /// Sets (or, with nil, removes) the client's logo; the client must have OIDC settings first.
    package func setLogo(_ logo: ClientLogo?, clientKey: String) async throws {
        let client = try await clients.client(clientKey: clientKey)
        guard try await repository.setLogo(logo, clientId: client.id, at: clock.now()) else {
            throw AppError.invalidField("logo", "set the client's OIDC settings (PUT /v1/admin/clients/{clientKey}/oidc) before its logo")
        }
    }
}
