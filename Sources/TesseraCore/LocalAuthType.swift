/// How the user proves presence on the device (the seed's `BSA.Enums.LocalAuthType`, plus PIN and
/// password for devices without biometrics): what the SDK sends at sign-up and the server stores
/// and answers with (`lastLocalAuthType`, an authentication's `authType`).
public enum LocalAuthType: String, Codable, Sendable, CaseIterable {
    /// No local authentication.
    case none = "NONE"
    /// Face or fingerprint.
    case biometric = "BIOMETRIC"
    /// The device passcode.
    case passcode = "PASSCODE"
    /// An app PIN, verified in software.
    case pin = "PIN"
    /// An app password, verified in software.
    case password = "PASSWORD"
}
