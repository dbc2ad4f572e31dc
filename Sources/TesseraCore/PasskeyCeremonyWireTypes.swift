/// Registration options with the ID of the challenge they carry: the answer of
/// `POST /v1/devices/passkeys/registration/options` (a passkey made in the app) and of the hosted page's
/// registration options.
public struct PasskeyCreationChallenge: Codable, Sendable, Equatable {
    /// Names the challenge in the finishing call.
    public var challengeId: String
    /// What the platform's passkey API takes.
    public var publicKey: PasskeyJSON.CreationOptions
    /// Creates the answer.
    public init(challengeId: String, publicKey: PasskeyJSON.CreationOptions) {
        self.challengeId = challengeId
        self.publicKey = publicKey
    }
}

/// Authentication options with the ID of the challenge they carry: the answer of
/// `POST /v1/passkeys/authentication/options` and of the hosted page's options.
public struct PasskeyRequestChallenge: Codable, Sendable, Equatable {
    /// Names the challenge in the finishing call.
    public var challengeId: String
    /// What the platform's passkey API takes.
    public var publicKey: PasskeyJSON.RequestOptions
    /// Creates the answer.
    public init(challengeId: String, publicKey: PasskeyJSON.RequestOptions) {
        self.challengeId = challengeId
        self.publicKey = publicKey
    }
}

/// `POST /v1/devices/passkeys/registration/verify`: the passkey the platform made, for the device's user.
public struct PasskeyRegistrationBody: Codable, Sendable {
    /// The challenge's ID, from the options.
    public var challengeId: String
    /// The created credential, as `RegistrationResponseJSON`.
    public var credential: PasskeyJSON.RegistrationResponse
    /// A name for it (1 to 64 characters); "Passkey" when absent.
    public var name: String?
    /// Creates the body.
    public init(challengeId: String, credential: PasskeyJSON.RegistrationResponse, name: String?) {
        self.challengeId = challengeId
        self.credential = credential
        self.name = name
    }
}

/// `POST /v1/passkeys/authentication/verify`: an assertion over the challenge of the options.
public struct PasskeyAuthenticationBody: Codable, Sendable {
    /// The challenge's ID, from the options.
    public var challengeId: String
    /// The assertion, as `AuthenticationResponseJSON`.
    public var credential: PasskeyJSON.AuthenticationResponse
    /// Creates the body.
    public init(challengeId: String, credential: PasskeyJSON.AuthenticationResponse) {
        self.challengeId = challengeId
        self.credential = credential
    }
}

/// A passkey sign-in in an app: who signed in, and a result token for the app's backend, which verifies it
/// as any other (`POST /v1/rp/introspect` or the JWKS): its `device_id` is the passkey's ID.
public struct PasskeySignInResult: Codable, Sendable, Equatable {
    /// The result token (an ES256 JWT).
    public var resultToken: String
    /// The user who signed in.
    public var userKey: String
    /// The passkey used (`pk_…`).
    public var passkeyId: String
    /// RFC 8176 methods: `hwk` (a device-bound passkey) or `swk` (a synced one), and `user`.
    public var amr: [String]
    /// The verifier nodes that verified the assertion on their own (empty unless the client requires them).
    public var nodes: [String]
    /// Creates the result.
    public init(resultToken: String, userKey: String, passkeyId: String, amr: [String], nodes: [String]) {
        self.resultToken = resultToken
        self.userKey = userKey
        self.passkeyId = passkeyId
        self.amr = amr
        self.nodes = nodes
    }
}

/// The apps that may use the server's passkeys (RP ID) as their own: served as
/// `/.well-known/apple-app-site-association` (`webcredentials`) and `/.well-known/assetlinks.json`
/// (`delegate_permission/common.get_login_creds`). Set per client: `PUT /v1/admin/clients/{clientKey}/passkeys/app-links`.
public struct PasskeyAppLinks: Codable, Sendable, Equatable {
    /// Apple app IDs: the team ID (10 capitals or digits), a dot, the bundle ID (`ABCDE12345.com.example.app`).
    public var appleAppIds: [String]
    /// Android apps: package name and SHA-256 fingerprints of the signing certificates.
    public var androidApps: [AndroidApp]

    /// An Android app.
    public struct AndroidApp: Codable, Sendable, Equatable {
        /// The package name (`com.example.app`).
        public var packageName: String
        /// Upper-case hex bytes joined by colons (`AB:CD:…`, 32 bytes), as `keytool` prints them.
        public var sha256CertFingerprints: [String]
        /// Creates an entry.
        public init(packageName: String, sha256CertFingerprints: [String]) {
            self.packageName = packageName
            self.sha256CertFingerprints = sha256CertFingerprints
        }
    }

    /// Creates the links.
    public init(appleAppIds: [String] = [], androidApps: [AndroidApp] = []) {
        self.appleAppIds = appleAppIds
        self.androidApps = androidApps
    }
}
