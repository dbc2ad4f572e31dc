/// What `checkDuplicateUserData` checks (the seed's `BSA.Enums.VerifyType`).
public enum VerifyType: String, Codable, Sendable, CaseIterable {
    /// An e-mail address.
    case email = "Email"
    /// A phone number.
    case phoneNumber = "PhoneNumber"
}

/// `POST /v1/users/check-duplicate` body (the seed's `checkDuplicateUserData`).
public struct CheckDuplicateRequest: Codable, Sendable, Equatable {
    /// The e-mail address or phone number.
    public var verifyData: String
    /// Which of the two it is.
    public var verifyType: VerifyType
    /// Creates a request.
    public init(verifyData: String, verifyType: VerifyType) {
        self.verifyData = verifyData
        self.verifyType = verifyType
    }
}

/// `POST /v1/users/check-duplicate` answer.
public struct CheckDuplicateResponse: Codable, Sendable, Equatable {
    /// Always 0 on success.
    public var rtCode: Int
    /// True when an account of this app already has it (the seed's `onDuplicateUser`).
    public var duplicate: Bool
    /// Creates an answer.
    public init(rtCode: Int = 0, duplicate: Bool) {
        self.rtCode = rtCode
        self.duplicate = duplicate
    }
}

/// `POST /v1/users/check-user-key` body (the seed's `checkUserKeyAvailable`).
public struct CheckUserKeyRequest: Codable, Sendable, Equatable {
    /// The user ID to check.
    public var userKey: String
    /// Creates a request.
    public init(userKey: String) { self.userKey = userKey }
}

/// `POST /v1/users/check-user-key` answer.
public struct CheckUserKeyResponse: Codable, Sendable, Equatable {
    /// Always 0 on success.
    public var rtCode: Int
    /// True when nobody of this app uses the key (the seed's `onUserKeyAvailable`).
    public var available: Bool
    /// Creates an answer.
    public init(rtCode: Int = 0, available: Bool) {
        self.rtCode = rtCode
        self.available = available
    }
}

/// `POST /v1/signup` body: the seed's `BSA.SignUpData.UserData` plus the two device public keys.
/// The request must be signed (RFC 9421) by the device key given here, with `keyid` equal to
/// ``MessageSignature/thumbprint(ofX963:)`` of that key: proof of possession.
public struct SignUpRequest: Codable, Sendable, Equatable {
    /// The app's bundle identifier.
    public var appPackage: String
    /// The client key.
    public var clientKey: String
    /// The app version (for example 1.1.1).
    public var appVersion: String
    /// The push token (FCM/APNs), may be empty.
    public var token: String
    /// E-mail address.
    public var email: String
    /// Phone number (E.164).
    public var phoneNumber: String
    /// The user ID.
    public var userKey: String
    /// The user's name.
    public var name: String
    /// Local authentication type (`NONE`, `BIOMETRIC`, `PASSCODE`, `PIN`, `PASSWORD`).
    public var authType: String
    /// Operating system (`iOS`, `macOS`, `Linux`, …).
    public var os: String
    /// The token from `verifyOTPNumber`, for the e-mail address or the phone number.
    public var disposeToken: String
    /// Terms of use accepted.
    public var agreeGccs: Bool
    /// Privacy policy accepted.
    public var agreePerson: Bool
    /// Device information policy accepted.
    public var agreeDevice: Bool
    /// The device key (P-256, X9.63 uncompressed point, base64).
    public var devicePublicKey: String
    /// The user-verification key (P-256, X9.63 uncompressed point, base64).
    public var userVerificationPublicKey: String
    /// With `authType` `PIN`: the PIN, sent once so that the server checks it against the client's
    /// policy; never stored.
    public var pin: String?
    /// With `authType` `PASSWORD`: the password, checked the same way; never stored.
    public var password: String?

    /// Creates a request.
    public init(
        appPackage: String, clientKey: String, appVersion: String, token: String, email: String, phoneNumber: String,
        userKey: String, name: String, authType: String, os: String, disposeToken: String, agreeGccs: Bool,
        agreePerson: Bool, agreeDevice: Bool, devicePublicKey: String, userVerificationPublicKey: String,
        pin: String? = nil, password: String? = nil
    ) {
        self.pin = pin
        self.password = password
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
        self.devicePublicKey = devicePublicKey
        self.userVerificationPublicKey = userVerificationPublicKey
    }
}

/// `POST /v1/signup` answer.
public struct SignUpResponse: Codable, Sendable, Equatable {
    /// Always 0 on success.
    public var rtCode: Int
    /// The user ID.
    public var userKey: String
    /// The new device's ID (the `keyid` of its signed requests from now on).
    public var deviceId: String
    /// The TOTP secret (RFC 6238, base32, 160 bits).
    public var totpSecret: String
    /// An opaque session token.
    public var sessionToken: String
    /// Seconds until the session expires.
    public var sessionExpiresIn: Int
    /// Creates an answer.
    public init(rtCode: Int = 0, userKey: String, deviceId: String, totpSecret: String, sessionToken: String, sessionExpiresIn: Int) {
        self.rtCode = rtCode
        self.userKey = userKey
        self.deviceId = deviceId
        self.totpSecret = totpSecret
        self.sessionToken = sessionToken
        self.sessionExpiresIn = sessionExpiresIn
    }
}

/// `POST /v1/devices/recovery/send-otp` body (the seed's `requestSendOTPNumberForRegisterDevice`).
public struct RecoveryOTPRequest: Codable, Sendable, Equatable {
    /// The user ID.
    public var userKey: String
    /// The user's name as registered.
    public var name: String
    /// Channel of the registered address to send to.
    public var sendType: OTPChannel
    /// The registered e-mail address or phone number.
    public var sendTarget: String
    /// Creates a request.
    public init(userKey: String, name: String, sendType: OTPChannel, sendTarget: String) {
        self.userKey = userKey
        self.name = name
        self.sendType = sendType
        self.sendTarget = sendTarget
    }
}

/// `POST /v1/devices/recovery/send-otp` answer: the code was sent (purpose `recovery`).
public struct RecoveryOTPResponse: Codable, Sendable, Equatable {
    /// Always 0 on success.
    public var rtCode: Int
    /// The local-auth type of the account's last device (the seed returns it).
    public var lastLocalAuthType: String
    /// Creates an answer.
    public init(rtCode: Int = 0, lastLocalAuthType: String) {
        self.rtCode = rtCode
        self.lastLocalAuthType = lastLocalAuthType
    }
}

/// `POST /v1/devices/register` body: the seed's `ExistingUserData` plus the new device's keys. Signed
/// by the new device key like sign-up; the old device is revoked in the same transaction.
public struct RegisterDeviceRequest: Codable, Sendable, Equatable {
    /// The user ID.
    public var userKey: String
    /// The recovery dispose token from `verifyOTPNumber` (purpose `recovery`).
    public var disposeToken: String
    /// App version.
    public var appVersion: String
    /// Push token, may be empty.
    public var token: String
    /// Local authentication type on the new device.
    public var authType: String
    /// Operating system.
    public var os: String
    /// The new device key (P-256, X9.63, base64).
    public var devicePublicKey: String
    /// The new user-verification key (P-256, X9.63, base64).
    public var userVerificationPublicKey: String
    /// With `authType` `PIN`: the PIN, checked against the client's policy; never stored.
    public var pin: String?
    /// With `authType` `PASSWORD`: the password, checked the same way; never stored.
    public var password: String?
    /// The name as registered; when sent, it must match the account (else 4006).
    public var name: String?
    /// The registered e-mail address; when sent, it must match the account (else 4006).
    public var email: String?
    /// The registered phone number; when sent, it must match the account (else 4006).
    public var phoneNumber: String?
    /// Where the recovery code went (`email` or `sms`); when sent, the dispose token must have been verified there.
    public var otpType: OTPChannel?
    /// Creates a request.
    public init(
        userKey: String, disposeToken: String, appVersion: String, token: String, authType: String, os: String,
        devicePublicKey: String, userVerificationPublicKey: String, pin: String? = nil, password: String? = nil,
        name: String? = nil, email: String? = nil, phoneNumber: String? = nil, otpType: OTPChannel? = nil
    ) {
        self.pin = pin
        self.password = password
        self.name = name
        self.email = email
        self.phoneNumber = phoneNumber
        self.otpType = otpType
        self.userKey = userKey
        self.disposeToken = disposeToken
        self.appVersion = appVersion
        self.token = token
        self.authType = authType
        self.os = os
        self.devicePublicKey = devicePublicKey
        self.userVerificationPublicKey = userVerificationPublicKey
    }
}

/// `GET /v1/devices/me` answer (a signed device call).
public struct DeviceInfoResponse: Codable, Sendable, Equatable {
    /// Always 0 on success.
    public var rtCode: Int
    /// The calling device.
    public var deviceId: String
    /// Its user.
    public var userKey: String
    /// Creates an answer.
    public init(rtCode: Int = 0, deviceId: String, userKey: String) {
        self.rtCode = rtCode
        self.deviceId = deviceId
        self.userKey = userKey
    }
}
