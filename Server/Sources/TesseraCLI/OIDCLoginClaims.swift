import JWTKit

/// An OpenID Connect ID token's claims as `tessera rp oidc-login` reads them after checking the
/// signature through the provider's JWKS (OIDC Core 1.0 §2), decoded from the token alone.
struct OIDCLoginClaims: JWTPayload {
    var iss: IssuerClaim
    /// The user key.
    var sub: SubjectClaim
    /// The client ID.
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var authTime: Int64?
    var nonce: String?
    /// RFC 8176 methods.
    var amr: [String]?
    var azp: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, amr, azp
        case authTime = "auth_time"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
