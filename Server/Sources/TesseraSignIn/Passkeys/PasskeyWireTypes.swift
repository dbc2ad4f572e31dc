/// The JSON forms of WebAuthn Level 3 (§5.1.8 `PublicKeyCredentialCreationOptionsJSON`, §5.1.10
/// `PublicKeyCredentialRequestOptionsJSON`, `RegistrationResponseJSON` and `AuthenticationResponseJSON`):
/// what a browser's `PublicKeyCredential.parseCreationOptionsFromJSON` takes and `toJSON()` gives.
package enum PasskeyJSON {
    package struct RelyingParty: Codable, Sendable, Equatable {
        package var id: String
        package var name: String
    }

    package struct User: Codable, Sendable, Equatable {
        package var id: String
        package var name: String
        package var displayName: String
    }

    package struct Parameter: Codable, Sendable, Equatable {
        package var type = "public-key"
        package var alg: Int
    }

    package struct Descriptor: Codable, Sendable, Equatable {
        package var type = "public-key"
        package var id: String
        package var transports: [String]?
    }

    package struct Selection: Codable, Sendable, Equatable {
        package var residentKey = "required"
        package var requireResidentKey = true
        package var userVerification: String
    }

    /// Registration options.
    package struct CreationOptions: Codable, Sendable, Equatable {
        package var challenge: String
        package var rp: RelyingParty
        package var user: User
        package var pubKeyCredParams: [Parameter]
        package var timeout: Int
        package var excludeCredentials: [Descriptor]
        package var authenticatorSelection: Selection
        package var attestation: String
    }

    /// Authentication options.
    package struct RequestOptions: Codable, Sendable, Equatable {
        package var challenge: String
        package var timeout: Int
        package var rpId: String
        package var allowCredentials: [Descriptor]
        package var userVerification: String

        package init(challenge: String, timeout: Int, rpId: String, allowCredentials: [Descriptor], userVerification: String) {
            self.challenge = challenge
            self.timeout = timeout
            self.rpId = rpId
            self.allowCredentials = allowCredentials
            self.userVerification = userVerification
        }
    }

    package struct AttestationResponse: Codable, Sendable {
        package var clientDataJSON: String
        package var attestationObject: String
        package var transports: [String]?

        package init(clientDataJSON: String, attestationObject: String, transports: [String]?) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.transports = transports
        }
    }

    /// What `toJSON()` of a registration's `PublicKeyCredential` gives.
    package struct RegistrationResponse: Codable, Sendable {
        package var id: String
        package var rawId: String
        package var type: String
        package var response: AttestationResponse

        package init(id: String, rawId: String, type: String, response: AttestationResponse) {
            self.id = id
            self.rawId = rawId
            self.type = type
            self.response = response
        }
    }

    package struct AssertionResponse: Codable, Sendable {
        package var clientDataJSON: String
        package var authenticatorData: String
        package var signature: String
        package var userHandle: String?

        package init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// What `toJSON()` of an authentication's `PublicKeyCredential` gives.
    package struct AuthenticationResponse: Codable, Sendable {
        package var id: String
        package var rawId: String
        package var type: String
        package var response: AssertionResponse

        package init(id: String, rawId: String, type: String, response: AssertionResponse) {
            self.id = id
            self.rawId = rawId
            self.type = type
            self.response = response
        }
    }
}
