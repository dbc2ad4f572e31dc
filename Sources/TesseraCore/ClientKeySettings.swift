/// A client's own public keys: `GET`/`PUT`/`DELETE /v1/admin/clients/{clientKey}/keys`. With keys registered the
/// client may authenticate at the token and backchannel authentication endpoints with `private_key_jwt` (a JWT it
/// signs, OIDC Core 1.0 §9, RFC 7523), and send CIBA `login_hint_token`s it signs.
public struct ClientKeySettings: Codable, Sendable, Equatable {
    /// The client's public signing keys as a JWK Set document (JSON text of at most 64 KiB; each key with a `kid`;
    /// RS256, PS256, ES256 and EdDSA keys among others; private members refused).
    public var jwks: String

    /// Creates the settings.
    public init(jwks: String) {
        self.jwks = jwks
    }
}
