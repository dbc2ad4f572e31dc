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

extension LocalAuthType {
    /// The number the GCCS SDK's `authType` ("Secondary authentication type", an `Int`) gives this
    /// type, for apps migrating from it: `0` none, `1` biometric, `2` device passcode, `3` PIN,
    /// `4` password. The numbers are fixed; a new type gets the next one, and none is ever reused.
    public var gccsCode: Int {
        switch self {
        case .none: 0
        case .biometric: 1
        case .passcode: 2
        case .pin: 3
        case .password: 4
        }
    }

    /// The type whose ``gccsCode`` is `gccsCode`, or `nil` for a number that names none.
    public init?(gccsCode: Int) {
        guard let type = LocalAuthType.allCases.first(where: { $0.gccsCode == gccsCode }) else { return nil }
        self = type
    }
}
