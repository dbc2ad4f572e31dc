/// `POST /v1/devices/authenticator-challenges` body, signed (RFC 9421) by the device key: asks for a
/// single-use challenge for one of the device's active authenticators.
public struct AuthenticatorChallengeRequest: Codable, Sendable, Equatable {
    /// The user who authenticates (the seed's `username`): the user key of the device's user (7208 otherwise).
    public var username: String
    /// The AAID of the authenticator that will sign (see ``AuthenticatorType/aaid``).
    public var aaid: String

    /// Creates a request.
    public init(username: String, aaid: String) {
        self.username = username
        self.aaid = aaid
    }
}

/// The challenge an authenticator signs, valid once and for ``expiresIn`` seconds.
public struct AuthenticatorChallengeResponse: Codable, Sendable, Equatable {
    /// The challenge id (`ach_…`), sent back with the signature.
    public var challengeId: String
    /// The authenticator that must sign (`atr_…`).
    public var authenticatorId: String
    /// Random bytes (base64url) that go into ``AuthenticatorAuthenticationRequest/statementBytes(challengeId:deviceId:authenticatorId:challenge:)``.
    public var challenge: String
    /// Seconds the challenge stays valid.
    public var expiresIn: Int

    /// Creates an answer.
    public init(challengeId: String, authenticatorId: String, challenge: String, expiresIn: Int) {
        self.challengeId = challengeId
        self.authenticatorId = authenticatorId
        self.challenge = challenge
        self.expiresIn = expiresIn
    }
}

/// `POST /v1/devices/authenticator-logins` body, signed (RFC 9421) by the device key: the
/// authenticator key's signature over the challenge. The answer is an ``AuthResultResponse`` whose
/// result token's `amr` names the authenticator used.
public struct AuthenticatorAuthenticationRequest: Codable, Sendable, Equatable {
    /// The challenge id from ``AuthenticatorChallengeResponse``.
    public var challengeId: String
    /// The authenticator key's ECDSA P-256 signature (DER, base64) over ``statementBytes(challengeId:deviceId:authenticatorId:challenge:)``.
    public var signature: String

    /// Creates a request.
    public init(challengeId: String, signature: String) {
        self.challengeId = challengeId
        self.signature = signature
    }

    /// The bytes the authenticator key signs: bound to the challenge, the device and the authenticator.
    public static func statementBytes(challengeId: String, deviceId: String, authenticatorId: String, challenge: String) -> [UInt8] {
        Array("tessera-authenticator-authentication-v1\n\(challengeId)\n\(deviceId)\n\(authenticatorId)\n\(challenge)".utf8)
    }
}
