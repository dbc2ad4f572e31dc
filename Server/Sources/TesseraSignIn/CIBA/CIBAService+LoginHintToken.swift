import Foundation
import JWTKit
import TesseraCore

/// CIBA §7.1 `login_hint_token`: the user named in a JWT the client signed with a key it registered
/// (`PUT /v1/admin/clients/{clientKey}/keys`).
extension CIBAService {
    /// The claims read: `exp` (required), `aud` (when present, it must name the issuer), and the user as an RFC 9493
    /// subject identifier `sub_id` (`{"format": "email", "email": …}` or `{"format": "opaque", "id": <user key>}`)
    /// or, without one, `sub` (a user key).
    struct LoginHintToken: JWTPayload {
        struct SubjectIdentifier: Codable {
            var format: String
            var email: String?
            var id: String?
        }

        var exp: ExpirationClaim
        var aud: AudienceClaim?
        var sub: SubjectClaim?
        var subId: SubjectIdentifier?

        enum CodingKeys: String, CodingKey { case exp, aud, sub, subId = "sub_id" }

        /// Checked by ``CIBAService/loginHintTokenUser(_:client:)`` against the injected clock.
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The user key a `login_hint_token` names (nil when it names no user of the client: the request then conceals
    /// that, as for `login_hint`). `invalid_request` for a token the client's keys do not verify, or without a user;
    /// `expired_login_hint_token` once it expired (CIBA §13).
    func loginHintTokenUser(_ token: String, client: Client) async throws -> String? {
        guard token.utf8.count <= 8192, let keys = try? await oidc.clientKeys.keys(for: client),
              let claims = try? await keys.verify(token, as: LoginHintToken.self)
        else {
            throw OIDCService.OAuthError(
                error: "invalid_request", description: "login_hint_token must be a JWT signed with one of the client's registered keys"
            )
        }
        guard Int64(claims.exp.value.timeIntervalSince1970 * 1000) > oidc.clock.now() else {
            throw OIDCService.OAuthError(error: "expired_login_hint_token", description: "the login_hint_token expired")
        }
        guard claims.aud.map({ $0.value.contains(oidc.issuer) }) ?? true else {
            throw OIDCService.OAuthError(error: "invalid_request", description: "the login_hint_token's aud does not name this issuer")
        }
        let identifier: String? = switch claims.subId?.format {
        case "email": claims.subId?.email
        case "opaque": claims.subId?.id
        case nil: claims.sub?.value
        default: nil
        }
        guard let identifier, !identifier.isEmpty, identifier.utf8.count <= 254 else {
            throw OIDCService.OAuthError(
                error: "invalid_request", description: "login_hint_token must name the user: sub_id (format email or opaque) or sub"
            )
        }
        return try await oidc.user(clientId: client.id, identifier: identifier)?.userKey
    }
}
