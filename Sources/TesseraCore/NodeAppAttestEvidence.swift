/// A device's App Attest attestation as the server sends it to every verifier node with the device's record
/// (issue 41), so that each node verifies it itself: with its own copy of Apple's App Attestation root, at its own
/// time, for the client's app, and bound to the device key the record carries (the challenge's last 16 bytes are
/// the first 16 of SHA-256 of the key).
public struct NodeAppAttestEvidence: Codable, Sendable, Equatable {
    /// The attestation object the app's `attestKey` returned (CBOR), base64.
    public var attestationObject: String
    /// The App Attest key ID, base64 of its 32 bytes.
    public var keyId: String
    /// The challenge the server issued for the attestation, base64url (32 bytes, bound to the device key).
    public var challenge: String
    /// The client's Apple team ID.
    public var teamId: String
    /// The client's bundle ID.
    public var bundleId: String
    /// The client's App Attest environment: `development` or `production`.
    public var environment: String

    /// Evidence with these members.
    public init(attestationObject: String, keyId: String, challenge: String, teamId: String, bundleId: String, environment: String) {
        self.attestationObject = attestationObject
        self.keyId = keyId
        self.challenge = challenge
        self.teamId = teamId
        self.bundleId = bundleId
        self.environment = environment
    }
}

/// `POST /v1/app-attest/challenge` (client headers, no device yet): a challenge for an attestation sent with the
/// enrolment of the device key ``devicePublicKey`` (sign-up, re-registration, a session's device key).
public struct AppAttestEnrolmentChallengeRequest: Codable, Sendable, Equatable {
    /// The P-256 device key the device will enrol, X9.63 base64: the challenge is bound to it.
    public var devicePublicKey: String

    /// A request for the device key `devicePublicKey`.
    public init(devicePublicKey: String) { self.devicePublicKey = devicePublicKey }
}
