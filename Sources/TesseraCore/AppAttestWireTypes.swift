/// `POST /v1/devices/app-attest/attestation` (signed by the device): the App Attest key the app generated, Apple's
/// attestation of it, and the challenge the server issued for it (issue 41). The same three members, as `appAttest`,
/// go with the enrolment of a device key (sign-up, re-registration, a session's device key), for a challenge of
/// `POST /v1/app-attest/challenge`.
public struct AppAttestAttestationRequest: Codable, Sendable, Equatable {
    /// The key ID `DCAppAttestService.generateKey` returned: base64 of its 32 bytes.
    public var keyId: String
    /// The attestation object `attestKey` returned (CBOR), base64.
    public var attestationObject: String
    /// The challenge of `POST /v1/devices/app-attest/challenge` (or, at enrolment, of `POST /v1/app-attest/challenge`),
    /// as issued (base64url).
    public var challenge: String

    /// Creates the request.
    public init(keyId: String, attestationObject: String, challenge: String) {
        self.keyId = keyId
        self.attestationObject = attestationObject
        self.challenge = challenge
    }
}

/// An App Attest assertion sent with a sign-in approval (``AuthStartRequest/appAttestAssertion``): no challenge of its
/// own, the client data carries the channel's.
public struct AppAttestSignInAssertion: Codable, Sendable, Equatable {
    /// The assertion `DCAppAttestService.generateAssertion` returned (CBOR), base64.
    public var assertion: String
    /// The client data the assertion signs, base64: a JSON object whose `challenge` is the channel's challenge.
    public var clientData: String

    /// Creates the member.
    public init(assertion: String, clientData: String) {
        self.assertion = assertion
        self.clientData = clientData
    }
}

/// `POST /v1/devices/app-attest/assertion` (signed by the device): an assertion of the device's attested key over
/// client data that carries a challenge the server issued.
public struct AppAttestAssertionRequest: Codable, Sendable, Equatable {
    /// The assertion `DCAppAttestService.generateAssertion` returned (CBOR), base64.
    public var assertion: String
    /// The client data the assertion signs (its SHA-256 was given to `generateAssertion`), base64: a JSON object
    /// whose `challenge` member is ``challenge``.
    public var clientData: String
    /// The challenge of `POST /v1/devices/app-attest/challenge` (or, at enrolment, of `POST /v1/app-attest/challenge`),
    /// as issued (base64url).
    public var challenge: String

    /// Creates the request.
    public init(assertion: String, clientData: String, challenge: String) {
        self.assertion = assertion
        self.clientData = clientData
        self.challenge = challenge
    }
}

/// The answer to an accepted assertion.
public struct AppAttestAssertionResult: Codable, Sendable, Equatable {
    /// The assertion's counter, now the device's stored one.
    public var counter: Int64

    /// Creates the answer.
    public init(counter: Int64) { self.counter = counter }
}

/// A device's App Attest state: in the admin API's device view (`appAttest`) and the answer to an attestation.
public struct AppAttestDeviceState: Codable, Sendable, Equatable {
    /// Whether the device has an attested App Attest key.
    public var attested: Bool
    /// The key's ID, base64 (as the app knows it); absent when not attested.
    public var keyId: String?
    /// The environment it was attested in (`development` or `production`); absent when not attested.
    public var environment: String?
    /// When it was attested, milliseconds since 1970; absent when not attested.
    public var attestedAt: Int64?
    /// The counter of its last accepted assertion (0 right after the attestation); absent when not attested.
    public var counter: Int64?

    /// Creates a state.
    public init(attested: Bool, keyId: String? = nil, environment: String? = nil, attestedAt: Int64? = nil, counter: Int64? = nil) {
        self.attested = attested
        self.keyId = keyId
        self.environment = environment
        self.attestedAt = attestedAt
        self.counter = counter
    }

    /// A device without an attested key.
    public static let notAttested = AppAttestDeviceState(attested: false)
}
