/// The JSON forms of W3C WebAuthn Level 3 (§5.1.8 `PublicKeyCredentialCreationOptionsJSON`, §5.1.10
/// `PublicKeyCredentialRequestOptionsJSON`, `RegistrationResponseJSON` and `AuthenticationResponseJSON`):
/// what a browser's `PublicKeyCredential.parseCreationOptionsFromJSON` takes and `toJSON()` gives, and what
/// the SDK sends for a passkey made or used in an app. Binary members are base64url without padding.
public enum PasskeyJSON {
    /// The relying party (`rp`): its ID (a domain) and the name shown.
    public struct RelyingParty: Codable, Sendable, Equatable {
        /// The RP ID: the domain passkeys are bound to.
        public var id: String
        /// The name the authenticator shows.
        public var name: String
        /// Creates the relying party member.
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The account a passkey is made for (`user`).
    public struct User: Codable, Sendable, Equatable {
        /// The user handle (base64url): opaque, never the e-mail address.
        public var id: String
        /// The account name the authenticator shows.
        public var name: String
        /// The name shown beside it.
        public var displayName: String
        /// Creates the user member.
        public init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    /// One allowed algorithm (`pubKeyCredParams`), by its COSE number.
    public struct Parameter: Codable, Sendable, Equatable {
        /// Always `public-key`.
        public var type = "public-key"
        /// The COSE algorithm: -7 (ES256), -8 (EdDSA), -257 (RS256).
        public var alg: Int
        /// Creates an algorithm entry.
        public init(alg: Int) { self.alg = alg }
    }

    /// A credential named in `excludeCredentials` or `allowCredentials`.
    public struct Descriptor: Codable, Sendable, Equatable {
        /// Always `public-key`.
        public var type = "public-key"
        /// The credential ID (base64url).
        public var id: String
        /// How the authenticator may be reached, as it said at registration.
        public var transports: [String]?
        /// Creates a descriptor.
        public init(id: String, transports: [String]?) {
            self.id = id
            self.transports = transports
        }
    }

    /// `authenticatorSelection`: a discoverable credential (a passkey), with the user verification asked for.
    public struct Selection: Codable, Sendable, Equatable {
        /// Always `required`: a passkey is discoverable.
        public var residentKey = "required"
        /// `true`, for Level 1 browsers.
        public var requireResidentKey = true
        /// `required` or `preferred`.
        public var userVerification: String
        /// Creates the selection.
        public init(userVerification: String) { self.userVerification = userVerification }
    }

    /// Registration options (`navigator.credentials.create`'s `publicKey`).
    public struct CreationOptions: Codable, Sendable, Equatable {
        /// The challenge (base64url).
        public var challenge: String
        /// The relying party.
        public var rp: RelyingParty
        /// The account.
        public var user: User
        /// The algorithms the server accepts, preferred first.
        public var pubKeyCredParams: [Parameter]
        /// Milliseconds the ceremony may take.
        public var timeout: Int
        /// The user's passkeys already registered: an authenticator holding one of them refuses.
        public var excludeCredentials: [Descriptor]
        /// A discoverable credential, and the user verification asked for.
        public var authenticatorSelection: Selection
        /// The attestation conveyance asked for (`none`).
        public var attestation: String
        /// Creates registration options.
        public init(
            challenge: String, rp: RelyingParty, user: User, pubKeyCredParams: [Parameter], timeout: Int, excludeCredentials: [Descriptor],
            authenticatorSelection: Selection, attestation: String
        ) {
            self.challenge = challenge
            self.rp = rp
            self.user = user
            self.pubKeyCredParams = pubKeyCredParams
            self.timeout = timeout
            self.excludeCredentials = excludeCredentials
            self.authenticatorSelection = authenticatorSelection
            self.attestation = attestation
        }
    }

    /// Authentication options (`navigator.credentials.get`'s `publicKey`).
    public struct RequestOptions: Codable, Sendable, Equatable {
        /// The challenge (base64url).
        public var challenge: String
        /// Milliseconds the ceremony may take.
        public var timeout: Int
        /// The RP ID.
        public var rpId: String
        /// The credentials that may answer; empty for a usernameless sign-in (any discoverable passkey).
        public var allowCredentials: [Descriptor]
        /// `required` or `preferred`.
        public var userVerification: String
        /// Creates authentication options.
        public init(challenge: String, timeout: Int, rpId: String, allowCredentials: [Descriptor], userVerification: String) {
            self.challenge = challenge
            self.timeout = timeout
            self.rpId = rpId
            self.allowCredentials = allowCredentials
            self.userVerification = userVerification
        }
    }

    /// A registration's `response` member.
    public struct AttestationResponse: Codable, Sendable {
        /// The client data (base64url of its JSON bytes).
        public var clientDataJSON: String
        /// The attestation object (base64url of its CBOR).
        public var attestationObject: String
        /// How the authenticator may be reached later.
        public var transports: [String]?
        /// Creates the member.
        public init(clientDataJSON: String, attestationObject: String, transports: [String]?) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.transports = transports
        }
    }

    /// What `toJSON()` of a registration's `PublicKeyCredential` gives.
    public struct RegistrationResponse: Codable, Sendable {
        /// The credential ID (base64url).
        public var id: String
        /// The same, as the raw ID.
        public var rawId: String
        /// Always `public-key`.
        public var type: String
        /// The attestation.
        public var response: AttestationResponse
        /// Creates the response.
        public init(id: String, rawId: String, type: String, response: AttestationResponse) {
            self.id = id
            self.rawId = rawId
            self.type = type
            self.response = response
        }
    }

    /// An authentication's `response` member.
    public struct AssertionResponse: Codable, Sendable {
        /// The client data (base64url of its JSON bytes).
        public var clientDataJSON: String
        /// The authenticator data (base64url).
        public var authenticatorData: String
        /// The signature over the authenticator data and the client data's hash (base64url).
        public var signature: String
        /// The user handle the passkey holds (base64url), for a discoverable credential.
        public var userHandle: String?
        /// Creates the member.
        public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// What `toJSON()` of an authentication's `PublicKeyCredential` gives.
    public struct AuthenticationResponse: Codable, Sendable {
        /// The credential ID (base64url).
        public var id: String
        /// The same, as the raw ID.
        public var rawId: String
        /// Always `public-key`.
        public var type: String
        /// The assertion.
        public var response: AssertionResponse
        /// Creates the response.
        public init(id: String, rawId: String, type: String, response: AssertionResponse) {
            self.id = id
            self.rawId = rawId
            self.type = type
            self.response = response
        }
    }
}
