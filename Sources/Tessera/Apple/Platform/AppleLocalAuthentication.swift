#if canImport(LocalAuthentication)
import Foundation
import LocalAuthentication

/// `LAContext` is the ``LocalAuthenticationContext`` seam: its own `canEvaluatePolicy(_:error:)`,
/// `evaluatePolicy(_:localizedReason:)`, `biometryType` and `localizedFallbackTitle` witness it.
extension LAContext: LocalAuthenticationContext {
    /// `domainState.biometry.stateHash`: changes when a finger or face is added or removed.
    public var biometricDomainState: Data? { domainState.biometry.stateHash }
}

/// Apple's LocalAuthentication with the seed's behaviour: ``LocalAuthenticationEngine`` over `LAContext`.
/// Pass it as the `localAuthenticator` of ``TesseraClient/startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:)``.
public typealias AppleLocalAuthentication = LocalAuthenticationEngine<LAContext>

/// The Nevis biometric user verifier over `LAContext`.
public typealias AppleBiometricUserVerifier = LocalAuthBiometricUserVerifier<LAContext>

/// The Nevis device passcode user verifier over `LAContext`.
public typealias AppleDevicePasscodeUserVerifier = LocalAuthDevicePasscodeUserVerifier<LAContext>

extension LocalAuthenticationEngine where Context == LAContext {
    /// An engine over a fresh `LAContext` per authentication.
    public init() {
        self.init { LAContext() }
    }
}
#endif
