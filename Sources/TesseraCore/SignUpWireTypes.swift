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
///
/// One flat JSON object: the members of ``enrolment`` (user key, dispose token, the device's keys, local
/// authentication, app version, push token and OS) and this request's own.
public struct SignUpRequest: EnrolsDevice, Codable, Sendable, Equatable {
    /// The app's bundle identifier.
    public var appPackage: String
    /// The client key.
    public var clientKey: String
    /// E-mail address.
    public var email: String
    /// Phone number (E.164).
    public var phoneNumber: String
    /// The user's name.
    public var name: String
    /// Terms of use accepted.
    public var agreeGccs: Bool
    /// Privacy policy accepted.
    public var agreePerson: Bool
    /// Device information policy accepted.
    public var agreeDevice: Bool
    /// The user key, dispose token and new device, which re-registration sends too.
    public var enrolment: DeviceEnrolment

    /// Creates a request from the fields re-registration shares and this one's own.
    public init(
        enrolment: DeviceEnrolment, appPackage: String, clientKey: String, email: String, phoneNumber: String, name: String,
        agreeGccs: Bool, agreePerson: Bool, agreeDevice: Bool
    ) {
        self.enrolment = enrolment
        self.appPackage = appPackage
        self.clientKey = clientKey
        self.email = email
        self.phoneNumber = phoneNumber
        self.name = name
        self.agreeGccs = agreeGccs
        self.agreePerson = agreePerson
        self.agreeDevice = agreeDevice
    }

    /// Creates a request, every field in the order of the seed's `UserData`.
    public init(
        appPackage: String, clientKey: String, appVersion: String, token: String, email: String, phoneNumber: String,
        userKey: String, name: String, authType: String, os: String, disposeToken: String, agreeGccs: Bool,
        agreePerson: Bool, agreeDevice: Bool, devicePublicKey: String, userVerificationPublicKey: String,
        pin: String? = nil, password: String? = nil
    ) {
        self.init(
            enrolment: DeviceEnrolment(
                userKey: userKey, disposeToken: disposeToken, appVersion: appVersion, token: token, authType: authType, os: os,
                devicePublicKey: devicePublicKey, userVerificationPublicKey: userVerificationPublicKey, pin: pin, password: password
            ),
            appPackage: appPackage, clientKey: clientKey, email: email, phoneNumber: phoneNumber, name: name,
            agreeGccs: agreeGccs, agreePerson: agreePerson, agreeDevice: agreeDevice
        )
    }

    private enum CodingKeys: String, CodingKey {
        case appPackage, clientKey, email, phoneNumber, name, agreeGccs, agreePerson, agreeDevice
    }

    /// Decodes the flat object: this request's members and those of ``enrolment``.
    public init(from decoder: any Decoder) throws {
        let own = try decoder.container(keyedBy: CodingKeys.self)
        appPackage = try own.decode(String.self, forKey: .appPackage)
        clientKey = try own.decode(String.self, forKey: .clientKey)
        email = try own.decode(String.self, forKey: .email)
        phoneNumber = try own.decode(String.self, forKey: .phoneNumber)
        name = try own.decode(String.self, forKey: .name)
        agreeGccs = try own.decode(Bool.self, forKey: .agreeGccs)
        agreePerson = try own.decode(Bool.self, forKey: .agreePerson)
        agreeDevice = try own.decode(Bool.self, forKey: .agreeDevice)
        enrolment = try DeviceEnrolment(from: decoder)
    }

    /// Encodes one flat object: this request's members and those of ``enrolment``.
    public func encode(to encoder: any Encoder) throws {
        var own = encoder.container(keyedBy: CodingKeys.self)
        try own.encode(appPackage, forKey: .appPackage)
        try own.encode(clientKey, forKey: .clientKey)
        try own.encode(email, forKey: .email)
        try own.encode(phoneNumber, forKey: .phoneNumber)
        try own.encode(name, forKey: .name)
        try own.encode(agreeGccs, forKey: .agreeGccs)
        try own.encode(agreePerson, forKey: .agreePerson)
        try own.encode(agreeDevice, forKey: .agreeDevice)
        try enrolment.encode(to: encoder)
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
///
/// One flat JSON object: the members of ``enrolment`` (the user key, the recovery dispose token and the new
/// device, as sign-up sends them) and the identity this request may add, each left out when nil.
public struct RegisterDeviceRequest: EnrolsDevice, Codable, Sendable, Equatable {
    /// The user key, the recovery dispose token (purpose `recovery`) and the new device.
    public var enrolment: DeviceEnrolment
    /// The name as registered; when sent, it must match the account (else 4006).
    public var name: String?
    /// The registered e-mail address; when sent, it must match the account (else 4006).
    public var email: String?
    /// The registered phone number; when sent, it must match the account (else 4006).
    public var phoneNumber: String?
    /// Where the recovery code went (`email` or `sms`); when sent, the dispose token must have been verified there.
    public var otpType: OTPChannel?

    /// Creates a request from the fields sign-up shares and this one's own.
    public init(enrolment: DeviceEnrolment, name: String? = nil, email: String? = nil, phoneNumber: String? = nil, otpType: OTPChannel? = nil) {
        self.enrolment = enrolment
        self.name = name
        self.email = email
        self.phoneNumber = phoneNumber
        self.otpType = otpType
    }

    /// Creates a request.
    public init(
        userKey: String, disposeToken: String, appVersion: String, token: String, authType: String, os: String,
        devicePublicKey: String, userVerificationPublicKey: String, pin: String? = nil, password: String? = nil,
        name: String? = nil, email: String? = nil, phoneNumber: String? = nil, otpType: OTPChannel? = nil
    ) {
        self.init(
            enrolment: DeviceEnrolment(
                userKey: userKey, disposeToken: disposeToken, appVersion: appVersion, token: token, authType: authType, os: os,
                devicePublicKey: devicePublicKey, userVerificationPublicKey: userVerificationPublicKey, pin: pin, password: password
            ),
            name: name, email: email, phoneNumber: phoneNumber, otpType: otpType
        )
    }

    private enum CodingKeys: String, CodingKey {
        case name, email, phoneNumber, otpType
    }

    /// Decodes the flat object: the members of ``enrolment`` and this request's own.
    public init(from decoder: any Decoder) throws {
        enrolment = try DeviceEnrolment(from: decoder)
        let own = try decoder.container(keyedBy: CodingKeys.self)
        name = try own.decodeIfPresent(String.self, forKey: .name)
        email = try own.decodeIfPresent(String.self, forKey: .email)
        phoneNumber = try own.decodeIfPresent(String.self, forKey: .phoneNumber)
        otpType = try own.decodeIfPresent(OTPChannel.self, forKey: .otpType)
    }

    /// Encodes one flat object: the members of ``enrolment`` and this request's own that are not nil.
    public func encode(to encoder: any Encoder) throws {
        try enrolment.encode(to: encoder)
        var own = encoder.container(keyedBy: CodingKeys.self)
        try own.encodeIfPresent(name, forKey: .name)
        try own.encodeIfPresent(email, forKey: .email)
        try own.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
        try own.encodeIfPresent(otpType, forKey: .otpType)
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
