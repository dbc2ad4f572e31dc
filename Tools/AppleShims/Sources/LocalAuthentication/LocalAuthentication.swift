// Transcribed from Apple's LocalAuthentication documentation (LAContext.h, LAPublicDefines.h,
// LADomainState.h): only the symbols Sources/Tessera/Apple/Platform uses. Bodies are fatalError():
// this module exists to type-check the adapters on Linux, never to run them.
import Foundation

/// Linux has no `AutoreleasingUnsafeMutablePointer`; `&error` fills this the same way.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// `LAPolicy` (NS_ENUM(NSInteger)).
public enum LAPolicy: Int, @unchecked Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
    case deviceOwnerAuthenticationWithCompanion = 3
    case deviceOwnerAuthenticationWithBiometricsOrCompanion = 4
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// `LABiometryType` (NS_ENUM(NSInteger)).
public enum LABiometryType: Int, @unchecked Sendable {
    case none = 0
    case touchID = 1
    case faceID = 2
    case opticID = 4
}

/// `LADomainStateBiometry` (iOS 18, macOS 15).
open class LADomainStateBiometry: NSObject {
    open var stateHash: Data? { fatalError() }
    open var biometryType: LABiometryType { fatalError() }
}

/// `LADomainState` (iOS 18, macOS 15).
open class LADomainState: NSObject {
    open var biometry: LADomainStateBiometry { fatalError() }
    open var stateHash: Data? { fatalError() }
}

/// `LAContext`.
open class LAContext: NSObject {
    public override init() { fatalError() }
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool { fatalError() }
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool { fatalError() }
    open func invalidate() { fatalError() }
    open var localizedFallbackTitle: String? {
        get { fatalError() }
        set { fatalError() }
    }
    open var localizedCancelTitle: String? {
        get { fatalError() }
        set { fatalError() }
    }
    open var biometryType: LABiometryType { fatalError() }
    @available(*, deprecated, message: "use domainState.biometry.stateHash")
    open var evaluatedPolicyDomainState: Data? { fatalError() }
    open var domainState: LADomainState { fatalError() }
}

/// `LAError` and its codes (LAError.h, raw values from LAPublicDefines.h).
public struct LAError: Error {
    public enum Code: Int, @unchecked Sendable {
        case authenticationFailed = -1
        case userCancel = -2
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        case biometryLockout = -8
        case appCancel = -9
        case invalidContext = -10
        case companionNotAvailable = -11
        case biometryNotPaired = -12
        case biometryDisconnected = -13
        case invalidDimensions = -14
        case notInteractive = -1004
        @available(*, deprecated) public static var touchIDNotAvailable: Code { .biometryNotAvailable }
        @available(*, deprecated) public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
        @available(*, deprecated) public static var touchIDLockout: Code { .biometryLockout }
        @available(*, deprecated) public static var watchNotAvailable: Code { .companionNotAvailable }
    }
    public var code: Code { fatalError() }
}

/// `LAErrorDomain`.
public let LAErrorDomain: String = "com.apple.LocalAuthentication"
