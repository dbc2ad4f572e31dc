import Foundation
import JWTKit

/// The claims of an OpenID Connect ID token (OIDC Core 1.0 §2), signed ES256 with the result-token keys.
struct IDTokenClaims: JWTPayload, Equatable {
    var iss: IssuerClaim
    /// The user key.
    var sub: SubjectClaim
    /// The client key.
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    /// When the user approved on the device (seconds since 1970).
    var authTime: Int64
    var nonce: String?
    /// RFC 8176 methods, as the device reported them (`hwk` plus the local verification).
    var amr: [String]
    /// The client the token was issued to (OIDC Core §2 `azp`).
    var azp: String

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, amr, azp
        case authTime = "auth_time"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
