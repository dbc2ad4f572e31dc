/// What a node concluded about a device's App Attest evidence (issue 41), stored per device in `node_app_attest`.
struct NodeAppAttestOutcome: Sendable, Equatable {
    /// `verified`, or `failed`.
    var status: String
    /// Why it failed: an ``AppAttestError/code``, `not_bound` (the challenge is not bound to the record's device
    /// key), `unknown_environment` or `malformed` (the evidence's encoding); nil when verified.
    var failure: String?
    /// The App Attest key ID the evidence named (base64, as sent).
    var keyId: String
    /// When the node verified it, milliseconds since 1970 (on its clock).
    var verifiedAt: Int64

    /// Whether the node verified the attestation.
    var isVerified: Bool { status == Self.verified }

    static let verified = "verified"
    static let failed = "failed"
}
