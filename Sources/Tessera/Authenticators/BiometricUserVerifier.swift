import Foundation
import TesseraCore

/// What a ``BiometricUserVerifier`` verifies (the seed's `NMABiometricUserVerificationContext`).
public struct BiometricUserVerificationContext: Sendable, Equatable {
    /// The user being registered.
    public var username: String
    /// The biometric authenticator being registered (``AuthenticatorType/fingerprint`` or ``AuthenticatorType/faceRecognition``).
    public var authenticator: AuthenticatorType
    /// Whether the device passcode may be offered when biometrics fail.
    public var allowDevicePasscodeAsFallback: Bool

    /// Creates a context.
    public init(username: String, authenticator: AuthenticatorType, allowDevicePasscodeAsFallback: Bool) {
        self.username = username
        self.authenticator = authenticator
        self.allowDevicePasscodeAsFallback = allowDevicePasscodeAsFallback
    }
}

/// Verifies the user with the OS biometrics before a biometric authenticator is registered (the seed's
/// `NMABiometricUserVerifier`). On Apple platforms `AppleBiometricUserVerifier` wraps `LAContext`
/// (``LocalAuthBiometricUserVerifier``); on Linux only `MockBiometricUserVerifier` (in the `TesseraTesting` product) exists.
public protocol BiometricUserVerifier: Sendable {
    /// Verifies the user; returns when verified, throws (``LocalAuthError``, ``FidoErrorCode`` or
    /// `CancellationError`) otherwise.
    func verifyBiometric(context: BiometricUserVerificationContext) async throws
    /// The OS's current biometric domain state (`LAContext.evaluatedPolicyDomainState`): changes when
    /// fingers or faces are added or removed; nil when no biometrics are enrolled.
    var domainState: Data? { get }
}
