import Crypto
import Foundation
import TesseraCore

/// `startSignupFlow` input (the seed's `StartSignupRequest`).
public struct StartSignupRequest: Sendable, Equatable {
    /// The phone number (E.164) the code goes to.
    public var phoneNumber: String
    /// Creates a request.
    public init(phoneNumber: String) { self.phoneNumber = phoneNumber }
}

/// `startSignupFlow` answer.
public struct StartSignupResponse: Sendable, Equatable {
    /// Pass to the next two calls.
    public var flowID: String
    /// Seconds until the flow expires.
    public var expiresIn: Int
}

/// `verifyPhoneNumber` input (the seed's `VerifyPhoneNumberRequest`).
public struct VerifyPhoneNumberRequest: Sendable, Equatable {
    /// The flow from ``TesseraClient/startSignupFlow(request:)``.
    public var flowID: String
    /// The six-digit code.
    public var otp: String
    /// Creates a request.
    public init(flowID: String, otp: String) {
        self.flowID = flowID
        self.otp = otp
    }
}

/// `verifyPhoneNumber` answer: the same flow id.
public struct VerifyPhoneNumberResponse: Sendable, Equatable {
    /// The flow id.
    public var flowID: String
}

/// `finishSignupFlow` input (the seed's `FinishSignupRequest`).
public struct FinishSignupRequest: Sendable, Equatable {
    /// The flow id.
    public var flowID: String
    /// A password for later password log-in, or nil.
    public var password: String?
    /// The e-mail address.
    public var email: String
    /// First name.
    public var firstName: String
    /// Last name.
    public var lastName: String
    /// The verified phone number.
    public var phoneNumber: String
    /// Creates a request.
    public init(flowID: String, password: String?, email: String, firstName: String, lastName: String, phoneNumber: String) {
        self.flowID = flowID
        self.password = password
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.phoneNumber = phoneNumber
    }
}

/// `finishSignupFlow` answer: the same flow id and the new identity.
public struct FinishSignupResponse: Sendable, Equatable {
    /// The flow id.
    public var flowID: String
    /// The identity created.
    public var identity: IdentityInfo
    /// The device registered for it.
    public var deviceId: String
}

/// What the device tells the server about itself when its key is registered.
public struct DeviceDescription: Sendable, Equatable {
    /// The operating system.
    public var os: String
    /// The app version.
    public var appVersion: String
    /// The push token, or empty.
    public var pushToken: String
    /// Creates a description.
    public init(os: String = DeviceDescription.currentOS, appVersion: String = "1.0", pushToken: String = "") {
        self.os = os
        self.appVersion = appVersion
        self.pushToken = pushToken
    }

    /// The operating system this runs on.
    public static var currentOS: String {
        #if os(iOS)
        "iOS"
        #elseif os(macOS)
        "macOS"
        #else
        "Linux"
        #endif
    }
}

extension TesseraClient {
    /// Whether the user is logged in: the SDK holds a session bound to this device's key.
    public var isAuthenticated: Bool { authentication.current }

    /// Told on every change of ``isAuthenticated`` (held weakly).
    public var delegate: (any TesseraDelegate)? {
        get { authentication.currentDelegate }
        set { authentication.currentDelegate = newValue }
    }

    /// The authentication state as a stream: the current value first, then each change.
    public var authenticationStates: AsyncStream<Bool> { authentication.stream() }

    /// Starts a registration flow and sends a code to the phone (the seed's `startSignupFlow`).
    /// - Throws: ``TesseraError``: invalid phone number (2002), cooldown or rate limits (2010–2013), no SMS delivery (2014).
    public func startSignupFlow(request: StartSignupRequest) async throws -> StartSignupResponse {
        let flow: RegistrationFlow = try await call("POST", "/v1/flows/registration")
        let sent: RegistrationFlow = try await call(
            "POST", "/v1/flows/registration/\(flow.id)/phone", body: FlowPhoneRequest(phoneNumber: request.phoneNumber)
        )
        return StartSignupResponse(flowID: sent.id, expiresIn: sent.expiresIn)
    }

    /// Verifies the phone with the code (the seed's `verifyPhoneNumber`).
    /// - Throws: ``TesseraError``: wrong code (2020, `problem.remainingAttempts`), flow unknown, expired or out of order (7001–7004).
    public func verifyPhoneNumber(request: VerifyPhoneNumberRequest) async throws -> VerifyPhoneNumberResponse {
        let answer: FlowVerifyResponse = try await call(
            "POST", "/v1/flows/registration/\(request.flowID)/phone/verify", body: FlowVerifyRequest(otp: request.otp)
        )
        return VerifyPhoneNumberResponse(flowID: answer.id)
    }

    /// Finishes the flow (the seed's `finishSignupFlow`): creates the identity, keeps its session
    /// inside the SDK, generates this device's key pair and registers its public key. Only then does
    /// the state turn to authenticated.
    /// - Throws: ``TesseraError``: phone differs (7005), flow reused (7004), out of order (7003), duplicate e-mail or phone (4001/4002), password rules (7203).
    @discardableResult
    public func finishSignupFlow(request: FinishSignupRequest, device: DeviceDescription = DeviceDescription()) async throws -> FinishSignupResponse {
        let grant: SessionGrant = try await call(
            "POST", "/v1/flows/registration/\(request.flowID)/finish",
            body: FlowFinishRequest(
                password: request.password, email: request.email, firstName: request.firstName, lastName: request.lastName,
                phoneNumber: request.phoneNumber
            )
        )
        let deviceId = try await bindDevice(grant, device: device)
        return FinishSignupResponse(flowID: request.flowID, identity: grant.identity, deviceId: deviceId)
    }

    /// Logs in with a password (identities that set one) and registers this device's key.
    /// - Throws: ``TesseraError``: wrong identifier or password (7110), locked (7111), too many tries from here (7112).
    @discardableResult
    public func login(identifier: String, password: String, device: DeviceDescription = DeviceDescription()) async throws -> IdentityInfo {
        let grant: SessionGrant = try await call("POST", "/v1/login/password", body: PasswordLoginRequest(identifier: identifier, password: password))
        _ = try await bindDevice(grant, device: device)
        return grant.identity
    }

    /// Keeps the new session, then registers a fresh device key for it (the seed's `PUT …/certificates`),
    /// signed by that key. The session is saved first so that ``completeDeviceRegistration(device:)`` can
    /// finish the job after a network failure.
    func bindDevice(_ grant: SessionGrant, device: DeviceDescription) async throws -> String {
        let pending = StoredSession(token: grant.sessionToken, deviceBound: false, identityId: grant.identity.id)
        try sessionVault.saveSession(pending)
        return try await registerDeviceKey(session: pending, device: device)
    }

    /// Registers the device key of a session that has none yet (after a finish or log-in whose last
    /// step failed, for example offline).
    @discardableResult
    public func completeDeviceRegistration(device: DeviceDescription = DeviceDescription()) async throws -> String {
        guard let session = try sessionVault.loadSession(), !session.deviceBound else {
            throw TesseraError(code: .conflict, message: "No session waiting for a device key")
        }
        return try await registerDeviceKey(session: session, device: device)
    }

    private func registerDeviceKey(session: StoredSession, device: DeviceDescription) async throws -> String {
        let keys = try keyStore.generateKeys(unlockSecret: nil)
        let devicePublicKey = keys.device.x963Representation.base64EncodedString()
        let attestation = try await attestEnrolment(devicePublicKey: devicePublicKey, enrolmentSecret: session.token)
        var body = SessionDeviceRequest(
            devicePublicKey: devicePublicKey, userVerificationPublicKey: keys.userVerification.x963Representation.base64EncodedString(),
            os: device.os, appVersion: device.appVersion, pushToken: device.pushToken
        )
        let signer = MessageSignature.thumbprint(ofX963: keys.device.x963Representation)
        let (answer, appAttest): (SessionDeviceResponse, AppAttestAttestationRequest?) = try await sendEnrolment(attested: attestation) { attestation in
            body.appAttest = attestation
            return try await sessionCall("PUT", "/v1/session/device", bytes: try JSONEncoder().encode(body), signedBy: signer, session: session)
        }
        try storeEnrolledDevice(
            DeviceState(
                deviceId: answer.deviceId, userKey: session.identityId, totpSecret: answer.totpSecret, pushToken: device.pushToken,
                localAuthType: .none, appAttestKeyId: appAttest?.keyId
            ),
            sessionToken: session.token
        )
        log?("device key registered as \(answer.deviceId)")
        return answer.deviceId
    }

    /// What every enrolment ends with (sign-up, re-registration, the flow's device key, password log-in):
    /// the device state and its device-bound session saved, and the user reported logged in.
    func storeEnrolledDevice(_ state: DeviceState, sessionToken: String) throws {
        try keyStore.saveState(state)
        try sessionVault.saveSession(StoredSession(token: sessionToken, deviceBound: true, identityId: state.userKey))
        authentication.set(true, tessera: self)
    }

    /// The current session and its identity.
    public func currentSession() async throws -> CurrentSession {
        try await sessionCall("GET", "/v1/session")
    }

    /// The user's sessions (never their tokens).
    public func sessions() async throws -> [SessionInfo] {
        let list: SessionList = try await sessionCall("GET", "/v1/sessions")
        return list.sessions
    }

    /// Revokes one of the user's sessions (another device's, or this one's).
    public func revokeSession(id: String) async throws {
        let _: NoContent = try await sessionCall("DELETE", "/v1/sessions/\(id)")
    }

    /// Logs out: revokes the session at the server (best effort) and forgets it. The state turns to
    /// not authenticated even when the server cannot be reached.
    public func logout() async {
        if let session = try? sessionVault.loadSession() {
            do {
                let _: NoContent = try await sessionCall("DELETE", "/v1/session", session: session)
            } catch {
                log?("log-out at the server failed (\(error)); forgetting the session anyway")
            }
        }
        try? sessionVault.saveSession(nil)
        authentication.set(false, tessera: self)
    }
}
