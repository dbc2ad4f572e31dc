/// Why an App Attest attestation or assertion was refused: one case per check of Apple's "Validating apps that
/// connect to your server", each with a stable ``code`` for problem answers and audit entries.
public enum AppAttestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not what Apple defines; the associated value names the field (CBOR, `authData`, `x5c`,
    /// the nonce extension, the credential key, `signature`, …).
    case malformed(String)
    /// The attestation's `fmt` is not `apple-appattest`.
    case unsupportedFormat(String)
    /// Step 1: the `x5c` chain does not lead to a trusted App Attest root.
    case wrongChain(String)
    /// Step 1: a certificate of `x5c` is outside its validity period at the verification time (expired, or not
    /// yet valid).
    case certificateExpired(String)
    /// Steps 2–4: the credential certificate's nonce (extension 1.2.840.113635.100.8.2) is not
    /// SHA-256(authData ‖ SHA-256(challenge)).
    case nonceMismatch
    /// Step 5: the key ID the app sent is not SHA-256 of the credential certificate's public key.
    case keyIdMismatch
    /// Step 6 (and assertion step 4): `rpIdHash` is not SHA-256 of the client's App ID, `<teamID>.<bundleID>`.
    case rpIdMismatch
    /// Step 7: the attestation's counter is not 0.
    case counterNotZero(UInt32)
    /// Step 8: the AAGUID is not the client's environment's (`appattestdevelop` for development, `appattest`
    /// and seven zero bytes for production).
    case aaguidMismatch
    /// Step 9: the authenticator data's credential ID is not the key ID.
    case credentialIdMismatch
    /// Assertion step 3: the signature does not verify with the stored public key over
    /// SHA-256(authenticatorData ‖ SHA-256(clientData)).
    case badSignature
    /// Assertion step 5: the counter is not greater than the stored one (a replayed assertion or a cloned key).
    case counterNotGrown(stored: UInt32, received: UInt32)

    /// A stable identifier of the refusal.
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .unsupportedFormat: "unsupported_format"
        case .wrongChain: "wrong_chain"
        case .certificateExpired: "certificate_expired"
        case .nonceMismatch: "nonce_mismatch"
        case .keyIdMismatch: "key_id_mismatch"
        case .rpIdMismatch: "rp_id_mismatch"
        case .counterNotZero: "counter_not_zero"
        case .aaguidMismatch: "aaguid_mismatch"
        case .credentialIdMismatch: "credential_id_mismatch"
        case .badSignature: "bad_signature"
        case .counterNotGrown: "counter_not_grown"
        }
    }

    /// A sentence for logs and the problem answer's detail.
    public var description: String {
        switch self {
        case .malformed(let field): "malformed App Attest data: \(field)"
        case .unsupportedFormat(let format): "attestation format \(format) is not apple-appattest"
        case .wrongChain(let why): "the certificate chain does not lead to the App Attest root: \(why)"
        case .certificateExpired(let which): "\(which) is not valid at the verification time"
        case .nonceMismatch: "the credential certificate's nonce is not SHA-256(authData ‖ SHA-256(challenge))"
        case .keyIdMismatch: "the key ID is not SHA-256 of the credential certificate's public key"
        case .rpIdMismatch: "rpIdHash is not SHA-256 of the client's App ID"
        case .counterNotZero(let counter): "the attestation's counter is \(counter), not 0"
        case .aaguidMismatch: "the AAGUID is not the client's environment's"
        case .credentialIdMismatch: "the credential ID is not the key ID"
        case .badSignature: "the assertion's signature does not verify with the device's key"
        case .counterNotGrown(let stored, let received): "the counter went from \(stored) to \(received); it must grow"
        }
    }
}
