import Crypto
import Foundation
import TesseraCore

/// The seed's `BSA.SignUpData.UserData`. `appPackage` and `clientKey` come from the client's configuration;
/// an app that fills them, as the seed says ("fill all fields"), must fill in the configured ones.
public struct UserData: Sendable, Equatable {
    /// The app's bundle identifier; when set it must be the SDK configuration's.
    public var appPackage: String?
    /// The client key; when set it must be the SDK configuration's.
    public var clientKey: String?
    /// App version (for example 1.1.1).
    public var appVersion: String
    /// Push token (FCM/APNs), may be empty.
    public var token: String
    /// E-mail address.
    public var email: String
    /// Phone number (E.164).
    public var phoneNumber: String
    /// The user ID.
    public var userKey: String
    /// The user's name.
    public var name: String
    /// The local authentication type.
    public var authType: LocalAuthType
    /// Operating system (the seed's `BSA.Enums.OSType`).
    public var os: OSType
    /// The token from ``TesseraClient/verifyOTPNumber(sendType:sendTarget:otpNumber:purpose:)``.
    public var disposeToken: String
    /// Terms of use accepted.
    public var agreeGccs: Bool
    /// Privacy policy accepted.
    public var agreePerson: Bool
    /// Device information policy accepted.
    public var agreeDevice: Bool

    /// Creates user data (`appPackage` and `clientKey` may be left out: the configuration's are sent).
    public init(
        appPackage: String? = nil, clientKey: String? = nil, appVersion: String, token: String, email: String, phoneNumber: String, userKey: String, name: String,
        authType: LocalAuthType, os: OSType, disposeToken: String, agreeGccs: Bool, agreePerson: Bool, agreeDevice: Bool
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
        try checkConfigured(appPackage: userData.appPackage, clientKey: userData.clientKey, in: "userData")
        let verified = try await authenticateLocally(authType: userData.authType, localAuthenticator: localAuthenticator, reason: reason)
        return try await requestSignUp(userData: userData, verified: verified)
    }

    /// Signs up in the seed's order ("Local Authentication must succeed to invoke requestSignUp"): the
    /// app has already run ``startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:)``
    /// for `userData.authType`, and this uses its outcome without prompting again.
    /// - Throws: ``TesseraError`` with ``ErrorCode/localAuthRequired`` when no local authentication of that
    ///   type succeeded before (nothing is sent), else as ``requestSignUp(userData:localAuthenticator:reason:)``.
    @discardableResult
    public func requestSignUp(userData: UserData) async throws -> DeviceState {
        // A wrong appPackage or clientKey fails before the local authentication is used up.
        try checkConfigured(appPackage: userData.appPackage, clientKey: userData.clientKey, in: "userData")
        return try await requestSignUp(userData: userData, verified: try takeLocalAuthentication(of: userData.authType))
    }

    private func requestSignUp(userData: UserData, verified: LocalAuthResult) async throws -> DeviceState {
        try await enrolDevice(path: "/v1/signup", authType: userData.authType, pushToken: userData.token, verified: verified) { keys, secret in
            SignUpRequest(
                appPackage: configuration.bundleIdentifier, clientKey: configuration.clientKey, appVersion: userData.appVersion,
                token: userData.token, email: userData.email, phoneNumber: userData.phoneNumber, userKey: userData.userKey,
                name: userData.name, authType: userData.authType.rawValue, os: userData.os.rawValue, disposeToken: userData.disposeToken,
                agreeGccs: userData.agreeGccs, agreePerson: userData.agreePerson, agreeDevice: userData.agreeDevice,
                devicePublicKey: keys.device.x963Representation.base64EncodedString(),
                userVerificationPublicKey: keys.userVerification.x963Representation.base64EncodedString(),
                pin: secret.pin, password: secret.password
            )
        }
    }

    /// Refuses an `appPackage` or `clientKey` the app filled in that is not this client's configuration's
    /// (nothing is sent then): the server would take the configured ones.
    func checkConfigured(appPackage: String?, clientKey: String?, in name: String) throws {
        for (field, value, configured) in [
            ("appPackage", appPackage, configuration.bundleIdentifier), ("clientKey", clientKey, configuration.clientKey),
        ] where value.map({ $0 != configured }) ?? false {
            throw TesseraError(code: .fieldInvalid, message: "\(name).\(field) is not the one this TesseraClient is configured with")
        }
    }

    /// What sign-up and re-registration share: local authentication first, fresh keys in the key
    /// store, a request signed by the new device key (proof of possession), the answer stored. A PIN
    /// or password the user entered goes to `body` once, so that the server can check it against
    /// the app's policy (it is neither stored nor logged there).
    func enrolDevice<Body: Encodable>(
        path: String, authType: LocalAuthType, pushToken: String, verified: LocalAuthResult,
        body: (
            _ keys: (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey), _ secret: (pin: String?, password: String?)
        ) -> Body
    ) async throws -> DeviceState {
        let keys = try keyStore.generateKeys(unlockSecret: verified.enteredSecret, localAuthType: authType)
        let secret: (pin: String?, password: String?) = switch authType {
        case .pin: (verified.enteredSecret, nil)
        case .password: (nil, verified.enteredSecret)
        default: (nil, nil)
        }
        let answer: SignUpResponse = try await call(
            "POST", path, body: body(keys, secret), signedBy: MessageSignature.thumbprint(ofX963: keys.device.x963Representation)
        )
        // The biometric domain state of this enrolment: later prompts with checkDomainStateChanged compare with it.
        let state = DeviceState(
            deviceId: answer.deviceId, userKey: answer.userKey, totpSecret: answer.totpSecret, pushToken: pushToken, localAuthType: authType,
            domainState: verified.domainState
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
