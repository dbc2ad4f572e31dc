/// The codes of Apple's `LAError.Code`, with the raw values of `LAPublicDefines.h`, so that the mapping
/// to the seed's codes is plain Swift that the Linux tests cover. Aliases with the same raw value
/// (`touchIDNotAvailable`, `touchIDNotEnrolled`, `touchIDLockout`, `watchNotAvailable`) are static
/// members of the case they equal.
public enum LocalAuthenticationErrorCode: Int, Sendable, CaseIterable {
    /// `LAError.authenticationFailed`: the user failed to provide valid credentials.
    case authenticationFailed = -1
    /// `LAError.userCancel`: the user tapped Cancel.
    case userCancel = -2
    /// `LAError.userFallback`: the user tapped the fallback button.
    case userFallback = -3
    /// `LAError.systemCancel`: the system cancelled (another app came to the foreground).
    case systemCancel = -4
    /// `LAError.passcodeNotSet`: no passcode is set on the device.
    case passcodeNotSet = -5
    /// `LAError.biometryNotAvailable` (and `touchIDNotAvailable`): no biometry, or the app may not use it.
    case biometryNotAvailable = -6
    /// `LAError.biometryNotEnrolled` (and `touchIDNotEnrolled`): no face or finger enrolled.
    case biometryNotEnrolled = -7
    /// `LAError.biometryLockout` (and `touchIDLockout`): too many failed attempts.
    case biometryLockout = -8
    /// `LAError.appCancel`: the app cancelled (`invalidate()`).
    case appCancel = -9
    /// `LAError.invalidContext`: the context was invalidated before.
    case invalidContext = -10
    /// `LAError.companionNotAvailable` (and `watchNotAvailable`): no paired companion device nearby.
    case companionNotAvailable = -11
    /// `LAError.biometryNotPaired`: biometry needs a removable accessory and none is paired.
    case biometryNotPaired = -12
    /// `LAError.biometryDisconnected`: the paired biometric accessory is not connected.
    case biometryDisconnected = -13
    /// `LAError.invalidDimensions`.
    case invalidDimensions = -14
    /// `LAError.notInteractive`: showing the authentication UI is forbidden.
    case notInteractive = -1004

    /// `LAError.touchIDNotAvailable` (deprecated alias).
    public static let touchIDNotAvailable = biometryNotAvailable
    /// `LAError.touchIDNotEnrolled` (deprecated alias).
    public static let touchIDNotEnrolled = biometryNotEnrolled
    /// `LAError.touchIDLockout` (deprecated alias).
    public static let touchIDLockout = biometryLockout
    /// `LAError.watchNotAvailable` (deprecated alias).
    public static let watchNotAvailable = companionNotAvailable

    /// The seed's code for this failure (`BSA.LocalAuthHelper.ErrorCode`).
    /// - Parameter hasBiometricHardware: Whether the device has a biometric sensor (`LAContext.biometryType`
    ///   is not `.none`): `biometryNotAvailable` without one is `BIOMETRIC_NOT_SUPPORT_HARDWARE`.
    public func seedCode(hasBiometricHardware: Bool) -> LocalAuthErrorCode {
        switch self {
        case .authenticationFailed, .invalidContext, .invalidDimensions: .authFailed
        case .userCancel, .systemCancel, .appCancel: .userCancel
        case .userFallback: .userFallback
        case .passcodeNotSet: .passcodeNotEnrolledDevice
        case .biometryNotAvailable: hasBiometricHardware ? .biometricNotAvailable : .biometricNotSupportHardware
        case .biometryNotEnrolled: .biometricNotEnrolledDevice
        case .biometryLockout: .biometricLockOut
        case .companionNotAvailable, .biometryNotPaired, .biometryDisconnected, .notInteractive: .biometricNotAvailable
        }
    }

    /// The seed's code for an `NSError` code of the `LAErrorDomain`; an unknown code is ``LocalAuthErrorCode/authFailed``.
    public static func seedCode(forRawValue rawValue: Int, hasBiometricHardware: Bool) -> LocalAuthErrorCode {
        LocalAuthenticationErrorCode(rawValue: rawValue)?.seedCode(hasBiometricHardware: hasBiometricHardware) ?? .authFailed
    }

    /// Whether a biometric prompt that failed this way may go on with the device passcode when the
    /// request allows it (`usePasscodeWhenFailed`): the user asked for it, biometry failed or is locked,
    /// unavailable or not enrolled. Cancellations and a missing passcode end the request.
    public var allowsPasscodeFallback: Bool {
        switch self {
        case .userFallback, .authenticationFailed, .biometryLockout, .biometryNotAvailable, .biometryNotEnrolled,
             .biometryNotPaired, .biometryDisconnected, .companionNotAvailable: true
        case .userCancel, .systemCancel, .appCancel, .passcodeNotSet, .invalidContext, .invalidDimensions, .notInteractive: false
        }
    }
}
