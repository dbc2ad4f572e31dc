/// The attestation object of a registration (W3C WebAuthn Level 3, §6.5): the format, its
/// statement and the authenticator data.
public struct AttestationObject: Sendable {
    /// The attestation statement format identifier (`none`, `packed`, `fido-u2f`, …).
    public let format: String
    /// The format's statement, a CBOR map.
    public let statement: CBORValue
    /// The authenticator data, with the attested credential.
    public let authenticatorData: AuthenticatorData

    /// Parses the CBOR `{fmt, attStmt, authData}` map.
    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder().decode(bytes) } catch { throw .malformed("attestationObject: \(error)") }
        guard let format = value[text: "fmt"]?.text, let statement = value[text: "attStmt"], statement.map != nil,
              let authData = value[text: "authData"]?.bytes
        else { throw .malformed("attestationObject lacks fmt, attStmt or authData") }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(authData)
    }
}
