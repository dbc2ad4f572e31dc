import TesseraCore

/// What a ``DevicePasscodeUserVerifier`` verifies (the seed's `NMADevicePasscodeUserVerificationContext`).
public struct DevicePasscodeUserVerificationContext: Sendable, Equatable {
    /// The user being registered.
    public var username: String
    /// The authenticator being registered (``AuthenticatorType/devicePasscode``).
    public var authenticator: AuthenticatorType

    /// Creates a context.
    public init(username: String, authenticator: AuthenticatorType) {
        self.username = username
        self.authenticator = authenticator
    }
}

/// Verifies the user with the OS device passcode before a device passcode authenticator is registered
/// (the seed's `NMADevicePasscodeUserVerifier`). On Apple platforms `AppleDevicePasscodeUserVerifier` wraps `LAContext`
/// (``LocalAuthDevicePasscodeUserVerifier``); on Linux only `MockDevicePasscodeUserVerifier` (in the `TesseraTesting` product) exists.
public protocol DevicePasscodeUserVerifier: Sendable {
    /// Verifies the user; returns when verified, throws (``LocalAuthError``, ``FidoErrorCode`` or
    /// `CancellationError`) otherwise.
    func verifyDevicePasscode(context: DevicePasscodeUserVerificationContext) async throws
}
