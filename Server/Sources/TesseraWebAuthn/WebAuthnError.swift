/// Why a WebAuthn response was refused: one case per verification step (W3C WebAuthn Level 3,
/// §7.1 registration and §7.2 authentication), each with a stable ``code``.
public enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The response's bytes are not what the spec defines (base64url, JSON, CBOR or the layout of
    /// authenticator data).
    case malformed(String)
    /// `clientDataJSON.type` is not `webauthn.create` / `webauthn.get`.
    case wrongType(String)
    /// The challenge is not the one issued (or was used already).
    case wrongChallenge
    /// The origin is not one of the client's.
    case wrongOrigin(String)
    /// `crossOrigin` is true, or `topOrigin` is not allowed.
    case crossOrigin
    /// `rpIdHash` is not SHA-256 of the RP ID.
    case wrongRelyingParty
    /// The user-present flag is not set.
    case userNotPresent
    /// User verification was required and the UV flag is not set.
    case userNotVerified
    /// Backup state set without backup eligibility (§6.1: BS implies BE).
    case invalidBackupFlags
    /// The credential's algorithm is not on the allow-list.
    case unsupportedAlgorithm(Int64)
    /// The credential public key is not a usable COSE key.
    case invalidPublicKey(String)
    /// The signature does not verify.
    case invalidSignature
    /// The attestation statement does not verify.
    case invalidAttestation(String)
    /// The attestation's certificate chain does not lead to a trusted root.
    case untrustedAttestation(String)
    /// An attestation format the relying party does not accept.
    case unsupportedAttestationFormat(String)
    /// The credential ID is longer than 1023 bytes.
    case credentialIdTooLong(Int)
    /// The authenticator's signature counter did not grow (a possible clone).
    case counterRegression(stored: UInt32, received: UInt32)
    /// The assertion's `userHandle` is not the credential owner's.
    case wrongUser
    /// The credential is not one of those allowed.
    case credentialNotAllowed
    /// The authenticator model (AAGUID) is not accepted: not on the client's list, or reported compromised or
    /// revoked by the FIDO metadata.
    case authenticatorNotAllowed(String)

    /// A stable identifier of the refusal, for problem answers and audit entries.
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .wrongType: "wrong_type"
        case .wrongChallenge: "wrong_challenge"
        case .wrongOrigin: "wrong_origin"
        case .crossOrigin: "cross_origin"
        case .wrongRelyingParty: "wrong_rp_id"
        case .userNotPresent: "user_not_present"
        case .userNotVerified: "user_not_verified"
        case .invalidBackupFlags: "invalid_backup_flags"
        case .unsupportedAlgorithm: "unsupported_algorithm"
        case .invalidPublicKey: "invalid_public_key"
        case .invalidSignature: "invalid_signature"
        case .invalidAttestation: "invalid_attestation"
        case .untrustedAttestation: "untrusted_attestation"
        case .unsupportedAttestationFormat: "unsupported_attestation_format"
        case .credentialIdTooLong: "credential_id_too_long"
        case .counterRegression: "counter_regression"
        case .wrongUser: "wrong_user"
        case .credentialNotAllowed: "credential_not_allowed"
        case .authenticatorNotAllowed: "authenticator_not_allowed"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): "malformed response: \(why)"
        case .wrongType(let type): "clientDataJSON.type is \(type)"
        case .wrongChallenge: "the challenge is not the one issued"
        case .wrongOrigin(let origin): "origin \(origin) is not allowed"
        case .crossOrigin: "a cross-origin ceremony is not allowed"
        case .wrongRelyingParty: "rpIdHash is not the relying party's"
        case .userNotPresent: "the user-present flag is not set"
        case .userNotVerified: "user verification is required and was not performed"
        case .invalidBackupFlags: "backup state is set without backup eligibility"
        case .unsupportedAlgorithm(let alg): "COSE algorithm \(alg) is not allowed"
        case .invalidPublicKey(let why): "invalid credential public key: \(why)"
        case .invalidSignature: "the signature does not verify"
        case .invalidAttestation(let why): "invalid attestation: \(why)"
        case .untrustedAttestation(let why): "untrusted attestation: \(why)"
        case .unsupportedAttestationFormat(let fmt): "attestation format \(fmt) is not accepted"
        case .credentialIdTooLong(let n): "the credential ID has \(n) bytes (at most 1023)"
        case .counterRegression(let stored, let received): "the signature counter went from \(stored) to \(received)"
        case .wrongUser: "userHandle is not the credential's owner"
        case .credentialNotAllowed: "the credential is not one of those allowed"
        case .authenticatorNotAllowed(let why): "the authenticator is not accepted: \(why)"
        }
    }
}
