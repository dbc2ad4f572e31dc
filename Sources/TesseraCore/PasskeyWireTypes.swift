/// A registered passkey (WebAuthn credential), as the admin API and the CLI show it.
public struct PasskeyInfo: Codable, Sendable, Equatable {
    /// The passkey's ID (`pk_…`).
    public var id: String
    /// The client it was registered at.
    public var clientKey: String
    /// The name its owner gave it (or "Passkey").
    public var name: String
    /// The WebAuthn credential ID (base64url).
    public var credentialId: String
    /// The credential's algorithm: `ES256`, `EdDSA` or `RS256`.
    public var algorithm: String
    /// The authenticator model (32 hex digits; zeros when the authenticator does not say).
    public var aaguid: String
    /// The passkey provider's name for the AAGUID ("iCloud Keychain", "Google Password Manager"), when known: for
    /// display only, not evidence of the model.
    public var authenticatorName: String?
    /// Whether the passkey may be synced to other devices (backup eligible: a multi-device passkey).
    public var backupEligible: Bool
    /// Whether it was backed up when last used.
    public var backedUp: Bool
    /// The attestation statement's format at registration (`none`, `packed`, `fido-u2f`).
    public var attestationFormat: String
    /// How the authenticator can be reached (`internal`, `hybrid`, `usb`, …).
    public var transports: [String]
    /// When it was registered (ms since 1970).
    public var createdAt: Int64
    /// When it last signed in (ms since 1970).
    public var lastUsedAt: Int64?
    /// When its signature counter was seen to go back (a possible clone), ms since 1970.
    public var flaggedAt: Int64?

    /// Creates the description of a passkey.
    public init(
        id: String, clientKey: String, name: String, credentialId: String, algorithm: String, aaguid: String, backupEligible: Bool,
        backedUp: Bool, attestationFormat: String, transports: [String], createdAt: Int64, lastUsedAt: Int64?, flaggedAt: Int64?,
        authenticatorName: String? = nil
    ) {
        self.id = id
        self.clientKey = clientKey
        self.name = name
        self.credentialId = credentialId
        self.algorithm = algorithm
        self.aaguid = aaguid
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.attestationFormat = attestationFormat
        self.transports = transports
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.flaggedAt = flaggedAt
        self.authenticatorName = authenticatorName
    }
}

/// A user's passkeys.
public struct PasskeyList: Codable, Sendable, Equatable {
    /// Oldest first.
    public var passkeys: [PasskeyInfo]
    /// Creates a list.
    public init(passkeys: [PasskeyInfo]) { self.passkeys = passkeys }
}
