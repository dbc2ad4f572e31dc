/// What an attestation statement proved (W3C WebAuthn Level 3, §6.5.4), as Tessera verified it.
public enum AttestationType: Sendable, Equatable {
    /// No attestation (`none`, or a format accepted as none by policy).
    case none
    /// Self attestation: signed by the credential's own key.
    case selfAttestation
    /// Basic or CA attestation through a certificate chain; `trusted` tells whether the chain led to
    /// one of the relying party's trust anchors.
    case certificate(trusted: Bool)

    /// The name the spec uses (`None`, `Self`, `Basic`).
    public var name: String {
        switch self {
        case .none: "none"
        case .selfAttestation: "self"
        case .certificate(let trusted): trusted ? "basic-trusted" : "basic"
        }
    }
}
