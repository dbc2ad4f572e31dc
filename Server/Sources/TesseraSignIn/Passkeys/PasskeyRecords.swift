/// A registered passkey (WebAuthn credential) as stored: byte values in base64url, the AAGUID in hex.
package struct PasskeyCredential: Sendable, Equatable, Codable {
    package var id: String
    package var clientId: String
    package var userId: String
    /// The credential ID (base64url), unique per client.
    package var credentialId: String
    /// The owner's user handle (base64url), as the authenticator returns it in discoverable sign-ins.
    package var userHandle: String
    /// The COSE public key (base64url).
    package var publicKey: String
    /// The COSE algorithm (-7, -8, -257).
    package var algorithm: Int
    package var signCount: Int64
    /// The authenticator model (32 hex digits).
    package var aaguid: String
    package var backupEligible: Bool
    package var backedUp: Bool
    package var attestationFormat: String
    package var attestationType: String
    /// How the authenticator can be reached (`internal`, `hybrid`, `usb`, …), as the browser reported at registration.
    package var transports: [String]
    /// The name the user gave it (or the one Tessera gave from the AAGUID).
    package var name: String
    package var createdAt: Int64
    package var lastUsedAt: Int64?
    /// When a counter regression was seen (a possible clone).
    package var flaggedAt: Int64?
}

/// A ceremony's single-use challenge.
package struct PasskeyChallenge: Sendable, Equatable {
    /// `registration` or `authentication`.
    package enum Ceremony: String, Sendable {
        case registration
        case authentication
    }

    package var id: String
    package var clientId: String
    package var ceremony: Ceremony
    /// The user a registration is for, or the user named before an authentication (nil: usernameless).
    package var userId: String?
    /// What started the ceremony (a browser's pending sign-in, a device): only it may finish it.
    package var binding: String
    /// The challenge bytes (base64url).
    package var challenge: String
    package var createdAt: Int64
    package var expiresAt: Int64
}
