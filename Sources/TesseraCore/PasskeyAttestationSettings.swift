/// Which authenticators a client accepts for new passkeys (W3C WebAuthn Level 3 §7.1 steps 21–24):
/// `GET`/`PUT /v1/admin/clients/{clientKey}/passkeys/attestation`. By default any authenticator registers
/// (attestation `none`); a bank asks for `required` with its authenticators' roots.
public struct PasskeyAttestationSettings: Codable, Sendable, Equatable {
    /// `none` (the default: options ask for no attestation, any authenticator registers) or `required` (options
    /// ask for `direct` attestation; a registration must carry a certificate chain to one of `trustRoots`, or to
    /// the model's roots in the FIDO metadata BLOB the server was given; self and none attestations are refused).
    public var attestation: String
    /// Trust roots for `required`: PEM certificates (at most 10).
    public var trustRoots: [String]
    /// The authenticator models accepted (AAGUIDs: 32 hex digits, dashes allowed; at most 100); empty: any.
    public var allowedAAGUIDs: [String]

    /// Creates the settings.
    public init(attestation: String = "none", trustRoots: [String] = [], allowedAAGUIDs: [String] = []) {
        self.attestation = attestation
        self.trustRoots = trustRoots
        self.allowedAAGUIDs = allowedAAGUIDs
    }

    enum CodingKeys: String, CodingKey {
        case attestation, trustRoots, allowedAAGUIDs
    }

    /// Members left out take their defaults; an explicit `null` is refused (as the OpenAPI schema says).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        attestation = try c.member(.attestation, default: "none")
        trustRoots = try c.member(.trustRoots, default: [])
        allowedAAGUIDs = try c.member(.allowedAAGUIDs, default: [])
    }
}
