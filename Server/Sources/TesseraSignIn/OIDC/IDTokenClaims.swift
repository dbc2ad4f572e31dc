import Foundation
import JWTKit

/// The claims of an OpenID Connect ID token (OIDC Core 1.0 §2), signed ES256 with the result-token keys.
package struct IDTokenClaims: JWTPayload, Equatable {
    package var iss: IssuerClaim
    /// The user key.
    package var sub: SubjectClaim
    /// The client key.
    package var aud: AudienceClaim
    package var exp: ExpirationClaim
    package var iat: IssuedAtClaim
    /// When the user approved on the device (seconds since 1970).
    package var authTime: Int64
    package var nonce: String?
    /// RFC 8176 methods, as the device reported them (`hwk` plus the local verification).
    package var amr: [String]
    /// The client the token was issued to (OIDC Core §2 `azp`).
    package var azp: String

    package enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, amr, azp
        case authTime = "auth_time"
    }

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
