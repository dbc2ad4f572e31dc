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
/// dispose token was verified through `otpType`. The fields sign-up shares are in ``enrolment`` (read as
/// this data's own: `appPackage`, `clientKey`, `appVersion`, `token`, `email`, `phoneNumber`, `userKey`,
/// `name`, `authType`, `os`, `disposeToken`): the registered e-mail, phone and name, each sent only when
/// not empty, and the `authType` that
/// ``TesseraClient/requestSendOTPNumberForRegisterDevice(userKey:name:sendType:sendTarget:)`` returned.
public struct ExistingUserData: EmbedsEnrolmentData, Sendable, Equatable {
    /// The app, the user and the new device, which ``UserData`` holds too.
    public var enrolment: EnrolmentData
    /// Where the recovery code went.
    public var otpType: OTPType?

    /// Creates the data with every field of the seed, in the seed's order.
    public init(
        appPackage: String? = nil, clientKey: String? = nil, appVersion: String, token: String, email: String = "", phoneNumber: String = "",
        userKey: String, name: String = "", authType: LocalAuthType, os: OSType, disposeToken: String, otpType: OTPType? = nil
    ) {
        enrolment = EnrolmentData(
            appPackage: appPackage, clientKey: clientKey, appVersion: appVersion, token: token, email: email, phoneNumber: phoneNumber,
            userKey: userKey, name: name, authType: authType, os: os, disposeToken: disposeToken
        )
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
        try await registerDevice(existingUserData, verifying: .now(localAuthenticator, reason: reason))
    }

    /// Registers this device in the seed's order: the app has already authenticated the user with
    /// ``startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:)``
    /// for the account's local-auth type, and this uses that outcome without prompting again.
    /// - Throws: ``TesseraError`` with ``ErrorCode/localAuthRequired`` when no such local authentication succeeded before.
    @discardableResult
    public func requestRegisterDevice(existingUserData: ExistingUserData) async throws -> DeviceState {
        try await registerDevice(existingUserData, verifying: .before)
    }

    /// The name, e-mail and phone go only when filled in: the server checks each one sent against the account.
    private func registerDevice(_ existing: ExistingUserData, verifying verification: LocalVerification) async throws -> DeviceState {
        try await enrolDevice(path: "/v1/devices/register", existing.enrolment, named: "existingUserData", verification: verification) { enrolment in
            RegisterDeviceRequest(
                enrolment: enrolment, name: existing.name.isEmpty ? nil : existing.name, email: existing.email.isEmpty ? nil : existing.email,
                phoneNumber: existing.phoneNumber.isEmpty ? nil : existing.phoneNumber, otpType: existing.otpType
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
