import Crypto
import Foundation
import TesseraCore

/// The seed's `ExistingUserData`: what re-registration needs besides the new keys.
public struct ExistingUserData: Sendable, Equatable {
    /// The user ID.
    public var userKey: String
    /// The recovery token from ``TesseraClient/verifyOTPNumber(sendType:sendTarget:otpNumber:purpose:)`` with purpose `.recovery`.
    public var disposeToken: String
    /// App version.
    public var appVersion: String
    /// Push token, may be empty.
    public var token: String
    /// Local authentication type on this device.
    public var authType: LocalAuthType
    /// Operating system.
    public var os: String

    /// Creates the data.
    public init(userKey: String, disposeToken: String, appVersion: String, token: String, authType: LocalAuthType, os: String) {
        self.userKey = userKey
        self.disposeToken = disposeToken
        self.appVersion = appVersion
        self.token = token
        self.authType = authType
        self.os = os
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
        return LocalAuthType(rawValue: answer.lastLocalAuthType)
    }

    /// Registers this device for an existing account (the seed's `requestRegisterDevice`): local
    /// authentication first, new keys in the key store, a request signed by the new device key. The
    /// server revokes the old device in the same step.
    @discardableResult
    public func requestRegisterDevice(existingUserData: ExistingUserData, localAuthenticator: any LocalAuthenticator, reason: String) async throws -> DeviceState {
        try await enrolDevice(
            path: "/v1/devices/register", authType: existingUserData.authType, pushToken: existingUserData.token,
            localAuthenticator: localAuthenticator, reason: reason
        ) { keys, secret in
            RegisterDeviceRequest(
                userKey: existingUserData.userKey, disposeToken: existingUserData.disposeToken, appVersion: existingUserData.appVersion,
                token: existingUserData.token, authType: existingUserData.authType.rawValue, os: existingUserData.os,
                devicePublicKey: keys.device.x963Representation.base64EncodedString(),
                userVerificationPublicKey: keys.userVerification.x963Representation.base64EncodedString(),
                pin: secret.pin, password: secret.password
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
