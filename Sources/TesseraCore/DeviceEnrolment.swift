/// What sign-up (``SignUpRequest``) and re-registration (``RegisterDeviceRequest``) both send: the
/// account's user key, the dispose token that proves the OTP, and the new device (its two public keys, its
/// local authentication with the PIN or password once, its app version, push token and OS). Each request
/// embeds it: its members stand in the request's JSON object beside the request's own, and read as the
/// request's (`request.userKey`, through ``EnrolsDevice``).
public struct DeviceEnrolment: Codable, Sendable, Equatable {
    /// The user ID.
    public var userKey: String
    /// The token from `verifyOTPNumber` (purpose `signup` for the e-mail address or phone number signed
    /// up with, purpose `recovery` for re-registration).
    public var disposeToken: String
    /// The app version (for example 1.1.1).
    public var appVersion: String
    /// The push token (FCM/APNs), may be empty.
    public var token: String
    /// Local authentication type of the new device (`NONE`, `BIOMETRIC`, `PASSCODE`, `PIN`, `PASSWORD`).
    public var authType: String
    /// Operating system (`iOS`, `macOS`, `Linux`, …).
    public var os: String
    /// The device key (P-256, X9.63 uncompressed point, base64).
    public var devicePublicKey: String
    /// The user-verification key (P-256, X9.63 uncompressed point, base64).
    public var userVerificationPublicKey: String
    /// With `authType` `PIN`: the PIN, sent once so that the server checks it against the client's
    /// policy; never stored.
    public var pin: String?
    /// With `authType` `PASSWORD`: the password, checked the same way; never stored.
    public var password: String?
    /// The app's App Attest attestation for this device key, made for a challenge of `POST /v1/app-attest/challenge`
    /// (required when the client's App Attest policy is `required`; refused while it is `off`).
    public var appAttest: AppAttestAttestationRequest?

    /// Creates the fields.
    public init(
        userKey: String, disposeToken: String, appVersion: String, token: String, authType: String, os: String,
        devicePublicKey: String, userVerificationPublicKey: String, pin: String? = nil, password: String? = nil,
        appAttest: AppAttestAttestationRequest? = nil
    ) {
        self.appAttest = appAttest
        self.userKey = userKey
        self.disposeToken = disposeToken
        self.appVersion = appVersion
        self.token = token
        self.authType = authType
        self.os = os
        self.devicePublicKey = devicePublicKey
        self.userVerificationPublicKey = userVerificationPublicKey
        self.pin = pin
        self.password = password
    }
}

/// A request that embeds a ``DeviceEnrolment`` (``SignUpRequest``, ``RegisterDeviceRequest``): its
/// fields read and write as the request's own, `request.userKey` for `request.enrolment.userKey`.
@dynamicMemberLookup
public protocol EnrolsDevice {
    /// The fields sign-up and re-registration share.
    var enrolment: DeviceEnrolment { get set }
}

extension EnrolsDevice {
    /// A field of ``enrolment`` as the request's own.
    public subscript<Value>(dynamicMember field: WritableKeyPath<DeviceEnrolment, Value>) -> Value {
        get { enrolment[keyPath: field] }
        set { enrolment[keyPath: field] = newValue }
    }
}
