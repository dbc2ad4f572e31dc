/// The channel an OTP is sent over (the seed's `OTPSendType`).
public enum OTPChannel: String, Codable, Sendable, CaseIterable {
    /// E-mail.
    case email
    /// SMS text message to an E.164 phone number.
    case sms
}

/// What a verified OTP (and the dispose token it yields) may be used for.
public enum OTPPurpose: String, Codable, Sendable, CaseIterable {
    /// Creating a new account.
    case signup
    /// Moving an existing account to a new device.
    case recovery
}

/// Header names used by app calls.
public enum TesseraHeader {
    /// The client key of the calling app.
    public static let clientKey = "X-Tessera-Client-Key"
    /// The bundle identifier of the calling app.
    public static let bundleId = "X-Tessera-Bundle-Id"
}

/// `POST /v1/otp/send` body (the seed's `requestSendOTPNumber`).
public struct SendOTPRequest: Codable, Sendable, Equatable {
    /// Channel to send over.
    public var sendType: OTPChannel
    /// E-mail address or E.164 phone number.
    public var sendTarget: String
    /// What the code is for; defaults to sign-up.
    public var purpose: OTPPurpose?
    /// Creates a request.
    public init(sendType: OTPChannel, sendTarget: String, purpose: OTPPurpose? = nil) {
        self.sendType = sendType
        self.sendTarget = sendTarget
        self.purpose = purpose
    }
}

/// `POST /v1/otp/send` answer.
public struct SendOTPResponse: Codable, Sendable, Equatable {
    /// Always 0 on success.
    public var rtCode: Int
    /// The normalised target the code was sent to.
    public var sendTarget: String
    /// Seconds until the code expires.
    public var expiresIn: Int
    /// Seconds before another code may be requested for this target.
    public var resendAfter: Int
    /// Creates an answer.
    public init(rtCode: Int = 0, sendTarget: String, expiresIn: Int, resendAfter: Int) {
        self.rtCode = rtCode
        self.sendTarget = sendTarget
        self.expiresIn = expiresIn
        self.resendAfter = resendAfter
    }
}

/// `POST /v1/otp/verify` body (the seed's `verifyOTPNumber`).
public struct VerifyOTPRequest: Codable, Sendable, Equatable {
    /// Channel the code was sent over.
    public var sendType: OTPChannel
    /// The target the code was sent to.
    public var sendTarget: String
    /// The six-digit code the user typed.
    public var otpNumber: String
    /// What the code is for; defaults to sign-up.
    public var purpose: OTPPurpose?
    /// Creates a request.
    public init(sendType: OTPChannel, sendTarget: String, otpNumber: String, purpose: OTPPurpose? = nil) {
        self.sendType = sendType
        self.sendTarget = sendTarget
        self.otpNumber = otpNumber
        self.purpose = purpose
    }
}

/// `POST /v1/otp/verify` answer when the code matched.
public struct VerifyOTPResponse: Codable, Sendable, Equatable {
    /// Always 0 on success.
    public var rtCode: Int
    /// Single-use token proving the target was verified, bound to client, channel, target and purpose.
    public var disposeToken: String
    /// Seconds until the dispose token expires.
    public var expiresIn: Int
    /// Creates an answer.
    public init(rtCode: Int = 0, disposeToken: String, expiresIn: Int) {
        self.rtCode = rtCode
        self.disposeToken = disposeToken
        self.expiresIn = expiresIn
    }
}
