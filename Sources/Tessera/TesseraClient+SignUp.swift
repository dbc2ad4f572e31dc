import Crypto
import Foundation
import TesseraCore

/// What ``UserData`` and ``ExistingUserData`` both hold, the fields the seed's `BSA.SignUpData.UserData`
/// and `ExistingUserData` share, in the seed's order: the app, the user and the new device's local
/// authentication, app version, push token and OS. Each embeds it and reads its fields as its own
/// (`userData.appVersion`, through ``EmbedsEnrolmentData``). `appPackage` and `clientKey` come from the
/// client's configuration; an app that fills them, as the seed says ("fill all fields"), must fill in the
/// configured ones.
public struct EnrolmentData: Sendable, Equatable {
    /// The app's bundle identifier; when set it must be the SDK configuration's.
    public var appPackage: String?
    /// The client key; when set it must be the SDK configuration's.
    public var clientKey: String?
    /// App version (for example 1.1.1).
    public var appVersion: String
    /// Push token (FCM/APNs), may be empty.
    public var token: String
    /// E-mail address: the new account's at sign-up; at re-registration the registered one, checked
    /// against the account, or empty (not sent).
    public var email: String
    /// Phone number (E.164): the new account's at sign-up; at re-registration the registered one, or empty.
    public var phoneNumber: String
    /// The user ID.
    public var userKey: String
    /// The user's name: the new account's at sign-up; at re-registration the name as registered, or empty.
    public var name: String
    /// The local authentication type of the new device. Re-registration must use the one
    /// ``TesseraClient/requestSendOTPNumberForRegisterDevice(userKey:name:sendType:sendTarget:)`` returned
    /// (the server refuses another with 4008).
    public var authType: LocalAuthType
    /// Operating system (the seed's `BSA.Enums.OSType`).
    public var os: OSType
    /// The token from ``TesseraClient/verifyOTPNumber(sendType:sendTarget:otpNumber:purpose:)``: for the
    /// e-mail address or phone number signed up with, or after the recovery send.
    public var disposeToken: String

    /// Creates the fields, in the seed's order (`appPackage` and `clientKey` may be left out: the
    /// configuration's are sent).
    public init(
        appPackage: String? = nil, clientKey: String? = nil, appVersion: String, token: String, email: String, phoneNumber: String,
        userKey: String, name: String, authType: LocalAuthType, os: OSType, disposeToken: String
    ) {
        self.appPackage = appPackage
        self.clientKey = clientKey
        self.appVersion = appVersion
        self.token = token
        self.email = email
        self.phoneNumber = phoneNumber
        self.userKey = userKey
        self.name = name
        self.authType = authType
        self.os = os
        self.disposeToken = disposeToken
    }
}

/// Data that embeds an ``EnrolmentData`` (``UserData``, ``ExistingUserData``): its fields read and write
/// as the data's own, `userData.appVersion` for `userData.enrolment.appVersion`.
@dynamicMemberLookup
public protocol EmbedsEnrolmentData {
    /// The fields sign-up and re-registration share.
    var enrolment: EnrolmentData { get set }
}

extension EmbedsEnrolmentData {
    /// A field of ``enrolment`` as the data's own.
    public subscript<Value>(dynamicMember field: WritableKeyPath<EnrolmentData, Value>) -> Value {
        get { enrolment[keyPath: field] }
        set { enrolment[keyPath: field] = newValue }
    }
}

/// The seed's `BSA.SignUpData.UserData`: the fields re-registration shares in ``enrolment`` (read as this
/// data's own: `appPackage`, `clientKey`, `appVersion`, `token`, `email`, `phoneNumber`, `userKey`, `name`,
/// `authType`, `os`, `disposeToken`) and the consents, which only sign-up gives.
public struct UserData: EmbedsEnrolmentData, Sendable, Equatable {
    /// The app, the user and the new device, which ``ExistingUserData`` holds too.
    public var enrolment: EnrolmentData
    /// Terms of use accepted.
    public var agreeGccs: Bool
    /// Privacy policy accepted.
    public var agreePerson: Bool
    /// Device information policy accepted.
    public var agreeDevice: Bool

    /// Creates user data, every field in the seed's order (`appPackage` and `clientKey` may be left out:
    /// the configuration's are sent).
    public init(
        appPackage: String? = nil, clientKey: String? = nil, appVersion: String, token: String, email: String, phoneNumber: String, userKey: String, name: String,
        authType: LocalAuthType, os: OSType, disposeToken: String, agreeGccs: Bool, agreePerson: Bool, agreeDevice: Bool
    ) {
        enrolment = EnrolmentData(
            appPackage: appPackage, clientKey: clientKey, appVersion: appVersion, token: token, email: email, phoneNumber: phoneNumber,
            userKey: userKey, name: name, authType: authType, os: os, disposeToken: disposeToken
        )
        self.agreeGccs = agreeGccs
        self.agreePerson = agreePerson
        self.agreeDevice = agreeDevice
    }
}

extension TesseraClient {
    /// Whether an e-mail address or phone number already has an account (the seed's `checkDuplicateUserData`).
    /// - Returns: true for the seed's `onDuplicateUser`, false for `onNotDuplicateUser`.
    public func checkDuplicateUserData(verifyData: String, verifyType: VerifyType) async throws -> Bool {
        let answer: CheckDuplicateResponse = try await call(
            "POST", "/v1/users/check-duplicate", body: CheckDuplicateRequest(verifyData: verifyData, verifyType: verifyType)
        )
        return answer.duplicate
    }

    /// Whether a user key is free (the seed's `checkUserKeyAvailable`).
    public func checkUserKeyAvailable(userKey: String) async throws -> Bool {
        let answer: CheckUserKeyResponse = try await call("POST", "/v1/users/check-user-key", body: CheckUserKeyRequest(userKey: userKey))
        return answer.available
    }

    /// Signs up (the seed's `requestSignUp`): verifies the user locally first, generates the device and
    /// user-verification keys in the key store, sends the sign-up signed by the new device key, and
    /// stores the device ID, TOTP secret, push token, user key and local-auth type.
    /// - Throws: ``LocalAuthError`` when local authentication fails (nothing is sent), ``TesseraError`` with the server's code.
    @discardableResult
    public func requestSignUp(userData: UserData, localAuthenticator: any LocalAuthenticator, reason: String) async throws -> DeviceState {
        try await signUp(userData, verifying: .now(localAuthenticator, reason: reason))
    }

    /// Signs up in the seed's order ("Local Authentication must succeed to invoke requestSignUp"): the
    /// app has already run ``startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:)``
    /// for `userData.authType`, and this uses its outcome without prompting again.
    /// - Throws: ``TesseraError`` with ``ErrorCode/localAuthRequired`` when no local authentication of that
    ///   type succeeded before (nothing is sent), else as ``requestSignUp(userData:localAuthenticator:reason:)``.
    @discardableResult
    public func requestSignUp(userData: UserData) async throws -> DeviceState {
        try await signUp(userData, verifying: .before)
    }

    private func signUp(_ userData: UserData, verifying verification: LocalVerification) async throws -> DeviceState {
        try await enrolDevice(path: "/v1/signup", userData.enrolment, named: "userData", verification: verification) { enrolment in
            SignUpRequest(
                enrolment: enrolment, appPackage: configuration.bundleIdentifier, clientKey: configuration.clientKey, email: userData.email,
                phoneNumber: userData.phoneNumber, name: userData.name, agreeGccs: userData.agreeGccs, agreePerson: userData.agreePerson,
                agreeDevice: userData.agreeDevice
            )
        }
    }

    /// How sign-up and re-registration verify the user on the device.
    enum LocalVerification {
        /// With this authenticator, now.
        case now(any LocalAuthenticator, reason: String)
        /// By the last successful ``startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:)``
        /// of the data's local-auth type, used up by this enrolment.
        case before
    }

    /// What sign-up and re-registration share: the configured `appPackage` and `clientKey` checked
    /// (refused before anything is used up or sent), local authentication, fresh keys in the key store,
    /// the request `body` makes of the shared fields, signed by the new device key (proof of
    /// possession), the answer stored. A PIN or password the user entered goes into the request once, so
    /// that the server can check it against the app's policy (it is neither stored nor logged there).
    func enrolDevice<Body: Encodable>(
        path: String, _ data: EnrolmentData, named name: String, verification: LocalVerification, body: (DeviceEnrolment) -> Body
    ) async throws -> DeviceState {
        for (field, value, configured) in [
            ("appPackage", data.appPackage, configuration.bundleIdentifier), ("clientKey", data.clientKey, configuration.clientKey),
        ] where value.map({ $0 != configured }) ?? false {
            throw TesseraError(code: .fieldInvalid, message: "\(name).\(field) is not the one this TesseraClient is configured with")
        }
        let verified = switch verification {
        case .now(let localAuthenticator, let reason):
            try await authenticateLocally(authType: data.authType, localAuthenticator: localAuthenticator, reason: reason)
        case .before:
            try takeLocalAuthentication(of: data.authType)
        }
        let keys = try keyStore.generateKeys(unlockSecret: verified.enteredSecret, localAuthType: data.authType)
        let devicePublicKey = keys.device.x963Representation.base64EncodedString()
        let attestation = try await attestEnrolment(devicePublicKey: devicePublicKey, enrolmentSecret: data.disposeToken)
        var enrolment = DeviceEnrolment(
            userKey: data.userKey, disposeToken: data.disposeToken, appVersion: data.appVersion, token: data.token,
            authType: data.authType.rawValue, os: data.os.rawValue, devicePublicKey: devicePublicKey,
            userVerificationPublicKey: keys.userVerification.x963Representation.base64EncodedString(),
            pin: data.authType == .pin ? verified.enteredSecret : nil, password: data.authType == .password ? verified.enteredSecret : nil
        )
        let signer = MessageSignature.thumbprint(ofX963: keys.device.x963Representation)
        let (answer, appAttest): (SignUpResponse, AppAttestAttestationRequest?) = try await sendEnrolment(attested: attestation) { attestation in
            enrolment.appAttest = attestation
            return try await call("POST", path, body: body(enrolment), signedBy: signer)
        }
        // The biometric domain state of this enrolment: later prompts with checkDomainStateChanged compare with it.
        let state = DeviceState(
            deviceId: answer.deviceId, userKey: answer.userKey, totpSecret: answer.totpSecret, pushToken: data.token, localAuthType: data.authType,
            domainState: verified.domainState, appAttestKeyId: appAttest?.keyId
        )
        try storeEnrolledDevice(state, sessionToken: answer.sessionToken)
        log?("enrolled as device \(answer.deviceId)")
        return state
    }

    /// The stored TOTP secret (the seed's `BSA.loadTOTPSecretKey`).
    public func loadTOTPSecretKey() throws -> String? { try keyStore.loadState()?.totpSecret }
    /// The stored device ID (the seed's `BSA.loadDeviceID`).
    public func loadDeviceID() throws -> String? { try keyStore.loadState()?.deviceId }
    /// The stored push token (the seed's `BSA.loadFCMToken`).
    public func loadFCMToken() throws -> String? { try keyStore.loadState()?.pushToken }
    /// The stored user key (the seed's `BSA.loadUserKey`).
    public func loadUserKey() throws -> String? { try keyStore.loadState()?.userKey }
    /// The stored local-auth type (the seed's `BSA.loadLocalAuthType`).
    public func loadLocalAuthType() throws -> LocalAuthType? { try keyStore.loadState()?.localAuthType }

    /// The current TOTP code of this device (RFC 6238, 6 digits, 30 s), or nil before sign-up.
    public func currentTOTPCode(at date: Date = Date()) throws -> String? {
        guard let secret = try loadTOTPSecretKey() else { return nil }
        return TOTP(base32Secret: secret)?.code(at: date)
    }
}
