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

/// `LAErrorDomain`.
public let LAErrorDomain: String = "com.apple.LocalAuthentication"
