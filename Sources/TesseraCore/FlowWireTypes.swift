/// The states of a registration flow (the Vipaso sign-up), in order.
public enum RegistrationFlowState: String, Codable, Sendable, CaseIterable {
    /// Created; no phone number yet.
    case created
    /// A code was sent to the phone number.
    case otpSent = "otp_sent"
    /// The phone number was verified with the code.
    case verified
    /// The identity and its session were created; the flow cannot be used again.
    case finished
}

/// A registration flow as the server reports it.
public struct RegistrationFlow: Codable, Sendable, Equatable {
    /// The flow id (the seed's `flowID`).
    public var id: String
    /// Where the flow stands.
    public var state: RegistrationFlowState
    /// The phone number the code went to (E.164), once sent.
    public var phoneNumber: String?
    /// Seconds until the flow expires.
    public var expiresIn: Int
    /// Creates a flow answer.
    public init(id: String, state: RegistrationFlowState, phoneNumber: String?, expiresIn: Int) {
        self.id = id
        self.state = state
        self.phoneNumber = phoneNumber
        self.expiresIn = expiresIn
    }
}

/// `POST /v1/flows/registration/{flowId}/phone` body: send the code (the seed's phone verification step).
public struct FlowPhoneRequest: Codable, Sendable, Equatable {
    /// The phone number (E.164).
    public var phoneNumber: String
    /// Creates a request.
    public init(phoneNumber: String) { self.phoneNumber = phoneNumber }
}

/// `POST /v1/flows/registration/{flowId}/phone/verify` body.
public struct FlowVerifyRequest: Codable, Sendable, Equatable {
    /// The six-digit code.
    public var otp: String
    /// Creates a request.
    public init(otp: String) { self.otp = otp }
}

/// `POST /v1/flows/registration/{flowId}/phone/verify` answer.
public struct FlowVerifyResponse: Codable, Sendable, Equatable {
    /// The flow id.
    public var id: String
    /// `verified`.
    public var state: RegistrationFlowState
    /// "Phone verified successfully", as in the seed.
    public var message: String
    /// Creates an answer.
    public init(id: String, state: RegistrationFlowState, message: String) {
        self.id = id
        self.state = state
        self.message = message
    }
}

/// `POST /v1/flows/registration/{flowId}/finish` body: the profile and an optional password.
public struct FlowFinishRequest: Codable, Sendable, Equatable {
    /// The password for password log-in, or nil for none. Checked against the client's password rules.
    public var password: String?
    /// The e-mail address.
    public var email: String
    /// First name.
    public var firstName: String
    /// Last name.
    public var lastName: String
    /// Must equal the verified phone number.
    public var phoneNumber: String
    /// Creates a request.
    public init(password: String?, email: String, firstName: String, lastName: String, phoneNumber: String) {
        self.password = password
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.phoneNumber = phoneNumber
    }
}

/// An identity as shown to its own sessions.
public struct IdentityInfo: Codable, Sendable, Equatable {
    /// The identity id (also its user key).
    public var id: String
    /// The e-mail address.
    public var email: String
    /// The phone number (E.164).
    public var phoneNumber: String
    /// The display name.
    public var name: String
    /// Whether password log-in is possible.
    public var hasPassword: Bool
    /// Creates an identity.
    public init(id: String, email: String, phoneNumber: String, name: String, hasPassword: Bool) {
        self.id = id
        self.email = email
        self.phoneNumber = phoneNumber
        self.name = name
        self.hasPassword = hasPassword
    }
}

/// The answer of the flow's finish and of password log-in: a new session (without a device key yet).
public struct SessionGrant: Codable, Sendable, Equatable {
    /// The opaque session token (`tss_…`). The SDK keeps it in its key store and never hands it out.
    public var sessionToken: String
    /// Seconds until the session expires at the latest.
    public var sessionExpiresIn: Int
    /// The identity.
    public var identity: IdentityInfo
    /// Creates a grant.
    public init(sessionToken: String, sessionExpiresIn: Int, identity: IdentityInfo) {
        self.sessionToken = sessionToken
        self.sessionExpiresIn = sessionExpiresIn
        self.identity = identity
    }
}

/// `POST /v1/login/password` body.
public struct PasswordLoginRequest: Codable, Sendable, Equatable {
    /// The e-mail address or phone number of the identity.
    public var identifier: String
    /// The password.
    public var password: String
    /// Creates a request.
    public init(identifier: String, password: String) {
        self.identifier = identifier
        self.password = password
    }
}

/// `PUT /v1/session/device` body: the device key pair made at the end of the flow or after a
/// password log-in (the seed's `PUT …/certificates`). Signed (RFC 9421) by that device key, with
/// `keyid` its thumbprint, and sent with the session as bearer.
public struct SessionDeviceRequest: Codable, Sendable, Equatable {
    /// The device public key (P-256, X9.63, base64).
    public var devicePublicKey: String
    /// The user-verification public key (P-256, X9.63, base64).
    public var userVerificationPublicKey: String
    /// The operating system.
    public var os: String
    /// The app version.
    public var appVersion: String
    /// The push token, or empty.
    public var pushToken: String
    /// The app's App Attest attestation for this device key, made for a challenge of `POST /v1/app-attest/challenge`
    /// (required when the client's App Attest policy is `required`; refused while it is `off`).
    public var appAttest: AppAttestAttestationRequest?
    /// Creates a request.
    public init(
        devicePublicKey: String, userVerificationPublicKey: String, os: String, appVersion: String, pushToken: String,
        appAttest: AppAttestAttestationRequest? = nil
    ) {
        self.appAttest = appAttest
        self.devicePublicKey = devicePublicKey
        self.userVerificationPublicKey = userVerificationPublicKey
        self.os = os
        self.appVersion = appVersion
        self.pushToken = pushToken
    }
}

/// `PUT /v1/session/device` answer.
public struct SessionDeviceResponse: Codable, Sendable, Equatable {
    /// The new device's id.
    public var deviceId: String
    /// The device's TOTP secret (base32).
    public var totpSecret: String
    /// Devices of this user revoked because of the client's devices-per-user limit.
    public var revokedDeviceIds: [String]
    /// Creates an answer.
    public init(deviceId: String, totpSecret: String, revokedDeviceIds: [String]) {
        self.deviceId = deviceId
        self.totpSecret = totpSecret
        self.revokedDeviceIds = revokedDeviceIds
    }
}

/// One session of a user, as listed to the user and the admin (never the token).
public struct SessionInfo: Codable, Sendable, Equatable {
    /// The session id (`ses_…`), for revocation.
    public var id: String
    /// The device it is bound to, once registered.
    public var deviceId: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Milliseconds since 1970, the last authenticated call (to the minute).
    public var lastUsedAt: Int64
    /// Milliseconds since 1970: the absolute expiry.
    public var expiresAt: Int64
    /// Milliseconds since 1970 of the revocation, if revoked.
    public var revokedAt: Int64?
    /// Whether this is the session making the call.
    public var current: Bool
    /// Creates an entry.
    public init(id: String, deviceId: String?, createdAt: Int64, lastUsedAt: Int64, expiresAt: Int64, revokedAt: Int64?, current: Bool) {
        self.id = id
        self.deviceId = deviceId
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.current = current
    }
}

/// `GET /v1/sessions` and the admin listing.
public struct SessionList: Codable, Sendable, Equatable {
    /// Live sessions first, newest first.
    public var sessions: [SessionInfo]
    /// Creates a list.
    public init(sessions: [SessionInfo]) { self.sessions = sessions }
}

/// `GET /v1/session` answer: who the session belongs to.
public struct CurrentSession: Codable, Sendable, Equatable {
    /// The session.
    public var session: SessionInfo
    /// Its identity.
    public var identity: IdentityInfo
    /// Creates an answer.
    public init(session: SessionInfo, identity: IdentityInfo) {
        self.session = session
        self.identity = identity
    }
}
