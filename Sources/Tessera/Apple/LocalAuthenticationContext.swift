import Foundation

/// The policies of Apple's `LAPolicy` the SDK evaluates (raw values from `LAPublicDefines.h`).
public enum LocalAuthenticationPolicy: Int, Sendable, CaseIterable {
    /// `.deviceOwnerAuthenticationWithBiometrics`: Face ID, Touch ID or Optic ID only.
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// `.deviceOwnerAuthentication`: biometry, then the device passcode.
    case deviceOwnerAuthentication = 2
}

/// The kinds of Apple's `LABiometryType` (raw values from `LAContext.h`), as the SDK reports them.
public enum BiometryKind: Int, Sendable, CaseIterable {
    /// No biometric sensor.
    case none = 0
    /// Touch ID.
    case touchID = 1
    /// Face ID.
    case faceID = 2
    /// Optic ID.
    case opticID = 4
}

/// The seam over Apple's `LAContext`: exactly the members the SDK uses, with `LAContext`'s own
/// signatures, so that `LAContext` conforms with an extension that adds only
/// ``biometricDomainState`` (its `domainState.biometry.stateHash`). Tests conform a fake.
public protocol LocalAuthenticationContext: AnyObject {
    /// `LAPolicy` on Apple platforms.
    associatedtype Policy: RawRepresentable where Policy.RawValue == Int
    /// `LABiometryType` on Apple platforms.
    associatedtype Biometry: RawRepresentable where Biometry.RawValue == Int

    /// Whether `policy` can be evaluated now; `error` tells why not (an `LAError`).
    func canEvaluatePolicy(_ policy: Policy, error: LocalAuthenticationErrorPointer) -> Bool
    /// Prompts the user; returns true or throws an `LAError`.
    func evaluatePolicy(_ policy: Policy, localizedReason: String) async throws -> Bool
    /// The device's biometric sensor (set after ``canEvaluatePolicy(_:error:)``).
    var biometryType: Biometry { get }
    /// The fallback button's title; `""` hides the button, nil shows the system's.
    var localizedFallbackTitle: String? { get set }
    /// The enrolled biometry's state (changes when a finger or face is added or removed); nil when none.
    var biometricDomainState: Data? { get }
}

/// The `NSError` domain of `LAError` (`LAErrorDomain`).
public let localAuthenticationErrorDomain = "com.apple.LocalAuthentication"

#if canImport(ObjectiveC)
/// `NSErrorPointer`, the error parameter of `LAContext.canEvaluatePolicy(_:error:)`.
public typealias LocalAuthenticationErrorPointer = NSErrorPointer
#else
/// Where Foundation has no `NSErrorPointer` (Linux): a plain pointer, which `&error` fills the same way.
public typealias LocalAuthenticationErrorPointer = UnsafeMutablePointer<NSError?>?
#endif
