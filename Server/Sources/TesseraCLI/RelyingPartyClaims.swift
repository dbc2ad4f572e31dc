import JWTKit

/// A result token's claims as a relying party reads them after checking the signature with the
/// server's JWKS: what `tessera rp authenticate` verifies and prints. Decoded from the token alone,
/// the way an app's backend does it, without the server's types.
struct RelyingPartyClaims: JWTPayload {
    var iss: IssuerClaim
    /// The user key.
    var sub: SubjectClaim
    /// The client key of the app.
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    /// The channel ID.
    var jti: IDClaim
    var clientId: String
    var deviceId: String
    /// RFC 8176 methods.
    var amr: [String]
    /// The nodes whose attestations made the quorum.
    var nodes: [String]

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, jti, amr, nodes
        case clientId = "client_id"
        case deviceId = "device_id"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
