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
    /// The left half of the access token's SHA-256, base64url (OIDC Core §3.1.3.6).
    package var atHash: String?
    /// With the `email` scope, when the user has one.
    package var email: String?
    /// With the `profile` scope, when the user has one.
    package var name: String?
    /// With the `phone` scope, when the user has one (E.164 as enrolled).
    package var phoneNumber: String?
    /// The session at Tessera the sign-in belongs to (Back-Channel Logout 1.0 §2.1 `sid`).
    package var sid: String?
    /// The verifier nodes whose attestations made the quorum of the phone's approval (a CIBA request's tokens).
    package var nodes: [String]?
    /// CIBA push mode (CIBA Core 1.0 §10.3.1): the request the tokens answer.
    package var authReqId: String?
    /// CIBA push mode: the left half of the refresh token's SHA-256, base64url.
    package var rtHash: String?

    package enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, amr, azp, email, name, sid, nodes
        case authTime = "auth_time", atHash = "at_hash", phoneNumber = "phone_number"
        case authReqId = "urn:openid:params:jwt:claim:auth_req_id", rtHash = "urn:openid:params:jwt:claim:rt_hash"
    }

    package init(
        iss: IssuerClaim, sub: SubjectClaim, aud: AudienceClaim, exp: ExpirationClaim, iat: IssuedAtClaim, authTime: Int64, nonce: String?,
        amr: [String], azp: String, atHash: String? = nil, email: String? = nil, name: String? = nil, phoneNumber: String? = nil,
        sid: String? = nil, nodes: [String]? = nil, authReqId: String? = nil, rtHash: String? = nil
    ) {
        self.authReqId = authReqId
        self.rtHash = rtHash
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.authTime = authTime
        self.nonce = nonce
        self.amr = amr
        self.azp = azp
        self.atHash = atHash
        self.email = email
        self.name = name
        self.phoneNumber = phoneNumber
        self.sid = sid
        self.nodes = nodes
    }

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
