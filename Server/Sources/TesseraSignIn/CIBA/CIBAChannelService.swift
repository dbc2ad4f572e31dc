import Foundation
import JWTKit
import TesseraCore

/// Tessera as the authentication channel of another identity server's CIBA, on the contract of Keycloak's "HTTP
/// Authentication Channel": the server POSTs `login_hint`, `scope`, `is_consent_required`, `binding_message` and
/// `acr_values` with a bearer JWT it signed (`iss` and `aud` its issuer, `jti` the request, `exp`); Tessera answers
/// 201, asks the user's phone (a relying-party request of the client, with its node quorum), and calls the
/// server's callback with that JWT and `{"status": "SUCCEED" | "UNAUTHORIZED" | "CANCELLED"}` (approved;
/// declined; cancelled, failed or expired) through the CIBA outbox (lease, retries, both databases).
package struct CIBAChannelService: Sendable {
    package let oidc: OIDCService
    package let pings: any CIBAPingRepository
    package let sealer: SealedResultToken
    package var repository: any CIBAChannelRepository = SQLCIBAChannelRepository()

    static let idDomain = "ciba-channel-jti"
    /// Keycloak's callback endpoint under the realm's issuer.
    static let keycloakCallbackPath = "/protocol/openid-connect/ext/ciba/auth/callback"

    package init(oidc: OIDCService, pings: any CIBAPingRepository, sealer: SealedResultToken) {
        self.oidc = oidc
        self.pings = pings
        self.sealer = sealer
    }

    /// The bearer JWT's claims that the channel checks (the other server's `AccessToken`).
    struct Bearer: JWTPayload {
        var iss: IssuerClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var jti: IDClaim
        var azp: String?

        /// Checked by ``CIBAChannelService/request(client:authorization:body:)`` against the injected clock.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// Takes an authentication request of the other server: checks its bearer JWT and the body, asks the user's
    /// phone, and queues the callback with the outcome. 401 (1106) for a missing, wrongly signed, expired or
    /// foreign JWT; 409 (1107) for a `jti` sent before; 404 (5010) for a user Tessera does not know.
    package func request(client: Client, authorization: String?, body: CIBAChannelRequest) async throws {
        let repository = self.repository
        guard let settings = try await oidc.database.read({ sql in try await repository.settings(clientId: client.id, in: sql) }) else {
            throw AppError.clientSecretInvalid(detail: "This client is no authentication channel")
        }
        guard let authorization, authorization.utf8.count <= 16 * 1024, authorization.lowercased().hasPrefix("bearer ") else {
            throw AppError.clientSecretInvalid(detail: "A bearer JWT signed by the issuer is required")
        }
        let token = String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        let now = oidc.clock.now()
        guard let keys = try? await SigningKeySet.keys(settings.jwks), let bearer = try? await keys.verify(token, as: Bearer.self),
              bearer.iss.value == settings.issuer, bearer.aud.value.contains(settings.issuer),
              Int64(bearer.exp.value.timeIntervalSince1970 * 1000) > now, !bearer.jti.value.isEmpty, bearer.jti.value.utf8.count <= 200
        else { throw AppError.clientSecretInvalid(detail: "The bearer JWT is not signed by the issuer's keys, or is not for it, or expired") }
        let message: String?
        do {
            message = try CIBAService.bindingMessage(body.bindingMessage)
        } catch {
            throw AppError.invalidField("binding_message", "binding_message must be 1 to \(CIBAService.bindingMessageLimit) characters without control characters")
        }
        let hint = body.loginHint.trimmingCharacters(in: .whitespaces)
        guard !hint.isEmpty, hint.utf8.count <= 254, !hint.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AppError.invalidField("login_hint", "login_hint must be a user key or an e-mail address")
        }
        for (field, value) in [("scope", body.scope), ("acr_values", body.acrValues)] where (value?.utf8.count ?? 0) > 500 {
            throw AppError.invalidField(field, "\(field) must be at most 500 characters")
        }
        guard let user = try await oidc.user(clientId: client.id, identifier: hint) else {
            throw AppError.authUserUnknown(detail: "No user of this client has this user key or e-mail address")
        }
        let id = oidc.hasher.hash(settings.issuer + " " + bearer.jti.value, domain: Self.idDomain)
        let payload = String(decoding: try JSONEncoder().encode(CIBAPings.Sealed(authReqId: bearer.jti.value, token: token)), as: UTF8.self)
        let sealed = try sealer.seal(payload, channelId: id)
        let pings = self.pings, lifetime = oidc.channelLifetime
        _ = try await oidc.relyingParty.createConcealing(
            client: client, userKey: user.userKey, connectIp: "authentication channel", message: message ?? "Sign in to \(client.name)"
        ) { channelId, createdAt, sql in
            guard try await pings.enqueue(
                id: id, kind: "channel", clientId: client.id, channelId: channelId, sealed: sealed, now: createdAt, dueAt: createdAt + lifetime.millis, in: sql
            ) else { throw AppError.conflict("This request (its jti) was sent already") }
        }
    }

    /// The status the callback carries for a relying-party outcome (nil: not final yet).
    package static func status(of outcome: AuthOutcome?) -> String? {
        switch outcome {
        case .completed: "SUCCEED"
        case .declined: "UNAUTHORIZED"
        case .cancelled, .failed, .expired, nil: "CANCELLED"
        case .pending, .inProgress: nil
        }
    }
}
