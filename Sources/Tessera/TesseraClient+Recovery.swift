import Crypto
import Foundation
import TesseraCore

/// The seed's `BSA.Enums.OSType`: the device's operating system, sent with its registration.
public enum OSType: String, Sendable, Codable, CaseIterable {
    /// iOS (the seed's only value).
    case iOS
    /// iPadOS.
    case iPadOS
    /// macOS.
    case macOS
    /// Linux (the `tessera device` CLI and servers).
    case linux = "Linux"
    /// Android.
    case android = "Android"
}

/// The seed's `BSA.Enums.OTPType`: where the OTP number went (e-mail or SMS); the same values as ``OTPChannel``.
public typealias OTPType = OTPChannel

/// The seed's `BSA.SignUpData.ExistingUserData`: what Register New Device needs besides the new keys.
/// "Fill all fields": the server checks name, e-mail and phone against the account, and that the
/// dispose token was verified through `otpType`.
public struct ExistingUserData: Sendable, Equatable {
    /// The app's bundle identifier; when set it must be the SDK configuration's.
    public var appPackage: String?
    /// The client key; when set it must be the SDK configuration's.
    public var clientKey: String?
    /// App version.
    public var appVersion: String
    /// Push token, may be empty.
    public var token: String
    /// The registered e-mail address, or empty.
    public var email: String
    /// The registered phone number, or empty.
    public var phoneNumber: String
    /// The user ID.
    public var userKey: String
    /// The name as registered, or empty.
    public var name: String
    /// The local-auth type ``TesseraClient/requestSendOTPNumberForRegisterDevice(userKey:name:sendType:sendTarget:)``
    /// returned: the new device authenticates with it (the server refuses another with 4008).
    public var authType: LocalAuthType
    /// Operating system.
    public var os: OSType
    /// The token from ``TesseraClient/verifyOTPNumber(sendType:sendTarget:otpNumber:purpose:)`` after the recovery send.
    public var disposeToken: String
    /// Where the recovery code went.
    public var otpType: OTPType?

    /// Creates the data with every field of the seed, in the seed's order.
    public init(
        appPackage: String? = nil, clientKey: String? = nil, appVersion: String, token: String, email: String = "", phoneNumber: String = "",
        userKey: String, name: String = "", authType: LocalAuthType, os: OSType, disposeToken: String, otpType: OTPType? = nil
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
        self.otpType = otpType
    }

    /// Creates the data with only what the server needs (the name, e-mail and phone are then not checked again).
    public init(userKey: String, disposeToken: String, appVersion: String, token: String, authType: LocalAuthType, os: OSType) {
        self.init(appVersion: appVersion, token: token, userKey: userKey, authType: authType, os: os, disposeToken: disposeToken)
    }
}

extension TesseraClient {
    /// Checks user key, name and the registered e-mail or phone, and sends a recovery code (the seed's
    /// `requestSendOTPNumberForRegisterDevice`).
    /// - Returns: The local-auth type of the account's last device.
    /// - Throws: ``TesseraError`` with ``ErrorCode/identityNotMatched`` when any part does not match.
    public func requestSendOTPNumberForRegisterDevice(userKey: String, name: String, sendType: OTPChannel, sendTarget: String) async throws -> LocalAuthType? {
        let answer: RecoveryOTPResponse = try await call(
            "POST", "/v1/devices/recovery/send-otp", body: RecoveryOTPRequest(userKey: userKey, name: name, sendType: sendType, sendTarget: sendTarget)
        )
        rememberPurpose(.recovery, sendType: sendType, sendTarget: sendTarget)
        return LocalAuthType(rawValue: answer.lastLocalAuthType)
    }

    /// Registers this device for an existing account (the seed's `requestRegisterDevice`): local
    /// authentication first, new keys in the key store, a request signed by the new device key. The
    /// server revokes the old device in the same step.
    @discardableResult
    public func requestRegisterDevice(existingUserData: ExistingUserData, localAuthenticator: any LocalAuthenticator, reason: String) async throws -> DeviceState {
        try checkConfigured(appPackage: existingUserData.appPackage, clientKey: existingUserData.clientKey, in: "existingUserData")
        let verified = try await authenticateLocally(authType: existingUserData.authType, localAuthenticator: localAuthenticator, reason: reason)
        return try await requestRegisterDevice(existingUserData: existingUserData, verified: verified)
    }

    /// Registers this device in the seed's order: the app has already authenticated the user with
    /// ``startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:)``
    /// for the account's local-auth type, and this uses that outcome without prompting again.
    /// - Throws: ``TesseraError`` with ``ErrorCode/localAuthRequired`` when no such local authentication succeeded before.
    @discardableResult
    public func requestRegisterDevice(existingUserData: ExistingUserData) async throws -> DeviceState {
        // A wrong appPackage or clientKey fails before the local authentication is used up.
        try checkConfigured(appPackage: existingUserData.appPackage, clientKey: existingUserData.clientKey, in: "existingUserData")
        return try await requestRegisterDevice(existingUserData: existingUserData, verified: try takeLocalAuthentication(of: existingUserData.authType))
    }

    private func requestRegisterDevice(existingUserData: ExistingUserData, verified: LocalAuthResult) async throws -> DeviceState {
        return try await enrolDevice(
            path: "/v1/devices/register", authType: existingUserData.authType, pushToken: existingUserData.token, verified: verified
        ) { keys, secret in
            RegisterDeviceRequest(
                userKey: existingUserData.userKey, disposeToken: existingUserData.disposeToken, appVersion: existingUserData.appVersion,
                token: existingUserData.token, authType: existingUserData.authType.rawValue, os: existingUserData.os.rawValue,
                devicePublicKey: keys.device.x963Representation.base64EncodedString(),
                userVerificationPublicKey: keys.userVerification.x963Representation.base64EncodedString(),
                pin: secret.pin, password: secret.password,
                name: existingUserData.name.isEmpty ? nil : existingUserData.name,
                email: existingUserData.email.isEmpty ? nil : existingUserData.email,
                phoneNumber: existingUserData.phoneNumber.isEmpty ? nil : existingUserData.phoneNumber, otpType: existingUserData.otpType
            )
        }
    }

    /// Asks the server who this device is, with a signed request. A revoked device gets
    /// ``ErrorCode/deviceRevoked``.
    public func deviceInfo() async throws -> DeviceInfoResponse {
        guard let deviceId = try keyStore.loadState()?.deviceId else {
            throw TesseraError(code: .deviceUnknown, message: "This device has not signed up")
        }
        return try await call("GET", "/v1/devices/me", signedBy: deviceId)
    }
}
