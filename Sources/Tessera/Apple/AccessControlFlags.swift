/// The flags of Apple's `SecAccessControlCreateFlags` (raw values from `SecAccessControl.h`), chosen
/// in plain Swift and handed to `SecAccessControlCreateWithFlags` by the Apple adapters.
///
/// | Key | Local-auth type | Flags |
/// |---|---|---|
/// | device key | any | `.privateKeyUsage` |
/// | user-verification key | `BIOMETRIC`, invalidate on new biometrics | `.biometryCurrentSet`, `.privateKeyUsage` |
/// | user-verification key | `BIOMETRIC`, kept across new biometrics | `.biometryAny`, `.privateKeyUsage` |
/// | user-verification key | `BIOMETRIC` with passcode fallback | `.userPresence`, `.privateKeyUsage` |
/// | user-verification key | `PASSCODE` | `.userPresence`, `.privateKeyUsage` |
/// | user-verification key | `PIN`, `PASSWORD`, `NONE` | `.privateKeyUsage` (the key is sealed under the PIN or password) |
///
/// `.privateKeyUsage` applies to Secure Enclave keys only; the Keychain store (software keys) drops it.
public struct AccessControlFlags: OptionSet, Sendable, Hashable {
    /// The raw `SecAccessControlCreateFlags` value.
    public let rawValue: UInt

    /// Creates flags from a raw value.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// `.userPresence`: biometry or the device passcode.
    public static let userPresence = AccessControlFlags(rawValue: 1 << 0)
    /// `.biometryAny`: any enrolled biometry, surviving new enrolments.
    public static let biometryAny = AccessControlFlags(rawValue: 1 << 1)
    /// `.biometryCurrentSet`: the biometry enrolled now; adding or removing a finger or face invalidates the key.
    public static let biometryCurrentSet = AccessControlFlags(rawValue: 1 << 3)
    /// `.devicePasscode`: the device passcode.
    public static let devicePasscode = AccessControlFlags(rawValue: 1 << 4)
    /// `.privateKeyUsage`: the private key signs (Secure Enclave keys).
    public static let privateKeyUsage = AccessControlFlags(rawValue: 1 << 30)

    /// The flags of the device key (possession only, no prompt).
    public static func deviceKey(secureEnclave: Bool) -> AccessControlFlags {
        secureEnclave ? .privateKeyUsage : []
    }

    /// The flags of the user-verification key (see the table above).
    /// - Parameters:
    ///   - localAuthType: The local-auth type chosen at sign-up.
    ///   - invalidateOnNewOsBiometrics: Bind a biometric key to the biometry enrolled now.
    ///   - passcodeFallback: Let the device passcode stand in when biometry fails (`usePasscodeWhenFailed`).
    ///   - secureEnclave: Whether the key is a Secure Enclave key (adds `.privateKeyUsage`).
    public static func userVerificationKey(
        localAuthType: LocalAuthType, invalidateOnNewOsBiometrics: Bool, passcodeFallback: Bool, secureEnclave: Bool
    ) -> AccessControlFlags {
        let base: AccessControlFlags = switch localAuthType {
        case .biometric where passcodeFallback: .userPresence
        case .biometric: invalidateOnNewOsBiometrics ? .biometryCurrentSet : .biometryAny
        case .passcode: .userPresence
        case .pin, .password, .none: []
        }
        return secureEnclave ? base.union(.privateKeyUsage) : base
    }
}
