import TesseraCore

/// What a successful ``Authentication`` gives (the seed family's `NMAAuthorization`): the result token
/// a relying party verifies, as the node-quorum log-in gives it.
public struct AuthenticationResult: Sendable, Equatable {
    /// The result token (JWT, ES256, verifiable with the server's JWKS). Its `amr` names the
    /// authenticator's RFC 8176 method (``AuthenticatorType/amrMethod``) and `swk`.
    public var token: String
    /// Seconds the token stays valid.
    public var expiresIn: Int
    /// The authenticator that signed.
    public var authenticator: AuthenticatorType
    /// Its id (`atr_…`).
    public var authenticatorId: String

    /// Creates a result.
    public init(token: String, expiresIn: Int, authenticator: AuthenticatorType, authenticatorId: String) {
        self.token = token
        self.expiresIn = expiresIn
        self.authenticator = authenticator
        self.authenticatorId = authenticatorId
    }
}
