/// The FIDO UAF client error codes an authenticator operation can end with (the seed's
/// `FidoErrorCode`). Thrown on its own by ``AuthenticatorKeyStore`` and
/// ``TesseraClient/signWithAuthenticator(_:data:unlockSecret:currentBiometricDomainState:)``, and wrapped
/// in ``OperationError/fido(_:)`` by ``Registration``.
public enum FidoErrorCode: String, Error, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The authenticator's key was invalidated for good (for instance, new OS biometrics were added to a
    /// biometric authenticator registered with `invalidateOnNewOsBiometrics`). A new registration is needed.
    case keyDisappearedPermanently = "KEY_DISAPPEARED_PERMANENTLY"
    /// The user cancelled the verification.
    case userCancelled = "USER_CANCELLED"
    /// The user has not enrolled the credential the authenticator needs (no finger, face or device passcode).
    case userNotEnrolled = "USER_NOT_ENROLLED"
    /// The user is locked out of the authenticator (too many failed attempts).
    case userLockout = "USER_LOCKOUT"
    /// No key of this authenticator type exists on the device.
    case noSuitableAuthenticator = "NO_SUITABLE_AUTHENTICATOR"
    /// The key exists but cannot be used: wrong PIN or password, or the biometric state is unknown.
    case authenticatorAccessDenied = "AUTHENTICATOR_ACCESS_DENIED"
    /// Any other failure.
    case unknown = "UNKNOWN"

    /// The code's name.
    public var description: String { rawValue }
}
