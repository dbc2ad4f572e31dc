import Foundation
import TesseraCore

/// A client's authentication-channel settings, as the admin sets them.
extension CIBAChannelService {
    /// The client's settings; 404 when it serves no other server.
    package func settings(client: Client) async throws -> CIBAChannelSettings {
        let repository = self.repository
        guard let settings = try await oidc.database.read({ sql in try await repository.settings(clientId: client.id, in: sql) }) else {
            throw AppError.notFound("This client is no authentication channel")
        }
        return settings
    }

    /// Replaces the client's settings: the issuer an https URL (plain http only on a loopback host); the callback
    /// URL likewise (Keycloak's under the issuer when left out); a JWKS with at least one signing key. 1005 naming
    /// the member otherwise.
    package func setSettings(_ settings: CIBAChannelSettings, client: Client) async throws -> CIBAChannelSettings {
        let issuer = try CIBAService.endpoint(settings.issuer, field: "issuer")
        guard URLComponents(string: issuer)?.query == nil else { throw AppError.invalidField("issuer", "issuer must have no query") }
        let callback = try CIBAService.endpoint(settings.callbackUrl ?? (issuer + Self.keycloakCallbackPath), field: "callbackUrl")
        _ = try await SigningKeySet.keys(settings.jwks)
        let stored = CIBAChannelSettings(issuer: issuer, callbackUrl: callback, jwks: settings.jwks)
        let repository = self.repository, now = oidc.clock.now()
        try await oidc.database.transaction { sql in try await repository.save(stored, clientId: client.id, now: now, in: sql) }
        return stored
    }

    /// Removes the client's settings: its requests are refused from then on, and queued callbacks dropped.
    package func deleteSettings(client: Client) async throws {
        let repository = self.repository
        guard try await oidc.database.transaction({ sql in try await repository.delete(clientId: client.id, in: sql) }) else {
            throw AppError.notFound("This client is no authentication channel")
        }
    }
}
