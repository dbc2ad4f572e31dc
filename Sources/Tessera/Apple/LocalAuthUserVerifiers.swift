import Foundation

/// The Nevis biometric user verifier (the seed's `NMABiometricUserVerifier`) over a
/// ``LocalAuthenticationEngine``: `AppleBiometricUserVerifier` on Apple platforms.
public struct LocalAuthBiometricUserVerifier<Context: LocalAuthenticationContext>: BiometricUserVerifier {
    /// The engine that prompts.
    public let engine: LocalAuthenticationEngine<Context>
    /// The text the system shows while asking.
    public let reason: String

    /// Creates a verifier.
    public init(engine: LocalAuthenticationEngine<Context>, reason: String) {
        self.engine = engine
        self.reason = reason
    }

    /// Prompts for biometry, with the device passcode as fallback when the context allows it.
    /// - Throws: ``LocalAuthError`` with the seed's code.
    public func verifyBiometric(context: BiometricUserVerificationContext) async throws {
        _ = try await engine.authenticate(LocalAuthRequest(
            localAuthType: .biometric, reason: reason, usePasscodeWhenFailed: context.allowDevicePasscodeAsFallback
        ))
    }

    /// The biometric domain state now (nil when no biometry is enrolled).
    public var domainState: Data? { engine.currentDomainState() }
}

/// The Nevis device passcode user verifier (the seed's `NMADevicePasscodeUserVerifier`) over a
/// ``LocalAuthenticationEngine``: `AppleDevicePasscodeUserVerifier` on Apple platforms.
public struct LocalAuthDevicePasscodeUserVerifier<Context: LocalAuthenticationContext>: DevicePasscodeUserVerifier {
    /// The engine that prompts.
    public let engine: LocalAuthenticationEngine<Context>
    /// The text the system shows while asking.
    public let reason: String

    /// Creates a verifier.
    public init(engine: LocalAuthenticationEngine<Context>, reason: String) {
        self.engine = engine
        self.reason = reason
    }

    /// Prompts for the device owner (biometry, then the passcode).
    /// - Throws: ``LocalAuthError`` with the seed's code.
    public func verifyDevicePasscode(context: DevicePasscodeUserVerificationContext) async throws {
        _ = try await engine.authenticate(LocalAuthRequest(localAuthType: .passcode, reason: reason))
    }
}
