/// Tessera as the authentication channel of another identity server's CIBA (Keycloak's "HTTP Authentication
/// Channel"): `GET`/`PUT`/`DELETE /v1/admin/clients/{clientKey}/ciba/channel`. The other server POSTs each
/// authentication to `/v1/ciba/channel/{clientKey}` with a bearer JWT it signed; Tessera asks the user's phone and
/// calls `callbackUrl` with that JWT and `SUCCEED`, `UNAUTHORIZED` or `CANCELLED`.
public struct CIBAChannelSettings: Codable, Sendable, Equatable {
    /// The other server's issuer (for Keycloak the realm's URL, `https://kc.example.com/realms/demo`): the bearer
    /// JWT's `iss` and `aud` must be exactly this.
    public var issuer: String
    /// Where the result goes: https (plain http only to a loopback host). Left out: Keycloak's callback endpoint,
    /// `<issuer>/protocol/openid-connect/ext/ciba/auth/callback`.
    public var callbackUrl: String?
    /// The other server's public signing keys as a JWK Set document (Keycloak: the realm's
    /// `…/protocol/openid-connect/certs`), JSON text of at most 64 KiB; RS256, PS256, ES256 and EdDSA keys are used.
    public var jwks: String

    /// Creates the settings.
    public init(issuer: String, callbackUrl: String? = nil, jwks: String) {
        self.issuer = issuer
        self.callbackUrl = callbackUrl
        self.jwks = jwks
    }

    enum CodingKeys: String, CodingKey { case issuer, callbackUrl, jwks }

    /// `callbackUrl` may be left out; an explicit `null` is refused.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try c.decode(String.self, forKey: .issuer)
        callbackUrl = c.contains(.callbackUrl) ? try c.decode(String.self, forKey: .callbackUrl) : nil
        jwks = try c.decode(String.self, forKey: .jwks)
    }
}

/// What an identity server's authentication channel request carries (Keycloak's `AuthenticationChannelRequest`):
/// the body of `POST /v1/ciba/channel/{clientKey}`.
public struct CIBAChannelRequest: Codable, Sendable, Equatable {
    /// The user, as the other server names it: a Tessera user key or e-mail address.
    public var loginHint: String
    /// The scopes the client asked for (shown nowhere; kept for the record).
    public var scope: String?
    /// Whether the other server wants the user's consent (the phone's approval is that consent).
    public var isConsentRequired: Bool?
    /// The CIBA `binding_message`, shown on the phone (at most 64 characters, no control characters).
    public var bindingMessage: String?
    /// The CIBA `acr_values` the client asked for.
    public var acrValues: String?

    /// Creates a request.
    public init(loginHint: String, scope: String? = nil, isConsentRequired: Bool? = nil, bindingMessage: String? = nil, acrValues: String? = nil) {
        self.loginHint = loginHint
        self.scope = scope
        self.isConsentRequired = isConsentRequired
        self.bindingMessage = bindingMessage
        self.acrValues = acrValues
    }

    enum CodingKeys: String, CodingKey {
        case loginHint = "login_hint", scope, isConsentRequired = "is_consent_required", bindingMessage = "binding_message", acrValues = "acr_values"
    }
}
