/// `POST /v1/devices/app-attest/challenge`'s answer.
struct AppAttestChallengeAnswer: Decodable, Sendable {
    /// 32 random bytes, base64url without padding: single-use.
    var challenge: String
    /// Seconds it can be used for.
    var expiresIn: Int
}
