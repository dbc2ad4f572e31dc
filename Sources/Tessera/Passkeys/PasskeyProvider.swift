import Foundation

/// What the platform's passkey API needs to create a passkey: the server's options, decoded.
public struct PasskeyCreationRequest: Sendable, Equatable {
    /// The relying party ID (the server's domain), which the app must list under
    /// `webcredentials:` in its Associated Domains entitlement.
    public var relyingPartyId: String
    /// The challenge the authenticator signs.
    public var challenge: Data
    /// The opaque user handle the passkey stores (never the e-mail address).
    public var userId: Data
    /// The account name the system shows.
    public var userName: String
    /// The IDs of the user's passkeys already registered: an authenticator holding one refuses.
    public var excludedCredentialIds: [Data]
    /// Whether the server requires user verification (Face ID, Touch ID, the device passcode).
    public var requiresUserVerification: Bool

    /// Creates a request.
    public init(
        relyingPartyId: String, challenge: Data, userId: Data, userName: String, excludedCredentialIds: [Data], requiresUserVerification: Bool
    ) {
        self.relyingPartyId = relyingPartyId
        self.challenge = challenge
        self.userId = userId
        self.userName = userName
        self.excludedCredentialIds = excludedCredentialIds
        self.requiresUserVerification = requiresUserVerification
    }
}

/// A passkey the platform created.
public struct PasskeyCreation: Sendable, Equatable {
    /// The credential ID.
    public var credentialId: Data
    /// The client data JSON's bytes, as the platform made them.
    public var clientDataJSON: Data
    /// The attestation object (CBOR).
    public var attestationObject: Data
    /// How the authenticator may be reached later (`internal`, `hybrid`), if known.
    public var transports: [String]

    /// Creates the result.
    public init(credentialId: Data, clientDataJSON: Data, attestationObject: Data, transports: [String] = []) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// What the platform's passkey API needs to sign in: the server's options, decoded.
public struct PasskeyAssertionRequest: Sendable, Equatable {
    /// The relying party ID (the server's domain).
    public var relyingPartyId: String
    /// The challenge the authenticator signs.
    public var challenge: Data
    /// The credentials that may answer; empty: any passkey of this relying party on the device (usernameless).
    public var allowedCredentialIds: [Data]
    /// Whether the server requires user verification.
    public var requiresUserVerification: Bool

    /// Creates a request.
    public init(relyingPartyId: String, challenge: Data, allowedCredentialIds: [Data], requiresUserVerification: Bool) {
        self.relyingPartyId = relyingPartyId
        self.challenge = challenge
        self.allowedCredentialIds = allowedCredentialIds
        self.requiresUserVerification = requiresUserVerification
    }
}

/// A passkey's signature over the server's challenge.
public struct PasskeyAssertion: Sendable, Equatable {
    /// The credential ID of the passkey used.
    public var credentialId: Data
    /// The client data JSON's bytes.
    public var clientDataJSON: Data
    /// The authenticator data.
    public var authenticatorData: Data
    /// The signature over the authenticator data and the client data's SHA-256.
    public var signature: Data
    /// The user handle the passkey holds.
    public var userHandle: Data?

    /// Creates the result.
    public init(credentialId: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        self.credentialId = credentialId
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// The seam between the SDK and the platform's passkey API: `ApplePasskeyProvider` on Apple platforms
/// (`ASAuthorizationController`), a software authenticator in tests. The SDK does the rest (options from
/// the server, their decoding, the responses' encoding, the server's verification).
///
/// A provider throws ``TesseraError`` with ``ErrorCode/passkeyCanceled`` when the user closes the sheet,
/// ``ErrorCode/passkeyExists`` when the authenticator already holds an excluded passkey, and
/// ``ErrorCode/localFailure`` for any other failure on the device.
public protocol PasskeyProvider: Sendable {
    /// Creates a passkey (WebAuthn `navigator.credentials.create`).
    func createPasskey(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation
    /// Signs the challenge with a passkey (WebAuthn `navigator.credentials.get`).
    func assertPasskey(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertion
}
