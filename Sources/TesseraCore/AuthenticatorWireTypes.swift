/// The authenticators a device can register (the seed's `NMAAuthenticatorAaid`), with their FIDO UAF AAIDs.
public enum AuthenticatorType: String, Codable, Sendable, CaseIterable {
    /// A PIN enrolled during registration.
    case pin
    /// A password enrolled during registration.
    case password
    /// Touch ID or another fingerprint sensor (enrolled at the OS level).
    case fingerprint
    /// Face ID (enrolled at the OS level).
    case faceRecognition
    /// The OS device passcode.
    case devicePasscode

    /// The FIDO UAF authenticator attestation id.
    public var aaid: String {
        switch self {
        case .pin: "F1D0#0001"
        case .fingerprint: "F1D0#0002"
        case .faceRecognition: "F1D0#0003"
        case .devicePasscode: "F1D0#1001"
        case .password: "F1D0#1002"
        }
    }

    /// The type with this AAID.
    public init?(aaid: String) {
        guard let match = Self.allCases.first(where: { $0.aaid == aaid }) else { return nil }
        self = match
    }

    /// Biometric authenticators (the ones `invalidateOnNewOsBiometrics` concerns).
    public var isBiometric: Bool { self == .fingerprint || self == .faceRecognition }
    /// Authenticators whose credential is enrolled at the OS level and needs a user verification to register.
    public var isOSEnrolled: Bool { isBiometric || self == .devicePasscode }

    /// The RFC 8176 authentication method this authenticator's user verification is, as the result
    /// token's `amr` names it after an authenticator authentication: `pin` (PIN, and the device passcode,
    /// which RFC 8176's `pin` covers: "a PIN or pattern … to unlock a key on the device"), `pwd`
    /// (password), `fpt` (fingerprint), `face` (face recognition).
    public var amrMethod: String {
        switch self {
        case .pin, .devicePasscode: "pin"
        case .password: "pwd"
        case .fingerprint: "fpt"
        case .faceRecognition: "face"
        }
    }
}

/// Rules for a PIN.
public struct PINRules: Codable, Sendable, Equatable {
    /// Fewest digits (default 6).
    public var minLength: Int
    /// Most digits (default 12).
    public var maxLength: Int
    /// Whether a PIN of one repeated digit (`111111`) is allowed (default no).
    public var allowRepeated: Bool
    /// Whether an ascending or descending run (`123456`, `987654`) is allowed (default no).
    public var allowSequential: Bool
    /// Creates rules.
    public init(minLength: Int = 6, maxLength: Int = 12, allowRepeated: Bool = false, allowSequential: Bool = false) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.allowRepeated = allowRepeated
        self.allowSequential = allowSequential
    }

    /// Decodes rules; a missing member takes its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = PINRules()
        minLength = try c.member(.minLength, default: d.minLength)
        maxLength = try c.member(.maxLength, default: d.maxLength)
        allowRepeated = try c.member(.allowRepeated, default: d.allowRepeated)
        allowSequential = try c.member(.allowSequential, default: d.allowSequential)
    }

    /// Why `pin` breaks the rules, or nil when it keeps them.
    public func violation(of pin: String) -> String? {
        guard pin.allSatisfy({ $0.isASCII && $0.isNumber }) else { return "the PIN must be digits only" }
        guard pin.count >= minLength else { return "the PIN must have at least \(minLength) digits" }
        guard pin.count <= maxLength else { return "the PIN must have at most \(maxLength) digits" }
        let digits = pin.compactMap(\.wholeNumberValue)
        if !allowRepeated, Set(digits).count == 1 { return "the PIN must not repeat one digit" }
        if !allowSequential, digits.count > 1 {
            let steps = Set(zip(digits, digits.dropFirst()).map { ($1 - $0 + 10) % 10 })
            if steps == [1] || steps == [9] { return "the PIN must not be an ascending or descending run" }
        }
        return nil
    }
}

/// Rules for a password (identity password and password authenticator alike).
public struct PasswordRules: Codable, Sendable, Equatable {
    /// Fewest characters (default 8).
    public var minLength: Int
    /// Most characters (default 128).
    public var maxLength: Int
    /// Whether a letter is required (default yes).
    public var requireLetter: Bool
    /// Whether a digit is required (default yes).
    public var requireDigit: Bool
    /// Creates rules.
    public init(minLength: Int = 8, maxLength: Int = 128, requireLetter: Bool = true, requireDigit: Bool = true) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.requireLetter = requireLetter
        self.requireDigit = requireDigit
    }

    /// Decodes rules; a missing member takes its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = PasswordRules()
        minLength = try c.member(.minLength, default: d.minLength)
        maxLength = try c.member(.maxLength, default: d.maxLength)
        requireLetter = try c.member(.requireLetter, default: d.requireLetter)
        requireDigit = try c.member(.requireDigit, default: d.requireDigit)
    }

    /// Why `password` breaks the rules, or nil when it keeps them.
    public func violation(of password: String) -> String? {
        guard password.count >= minLength else { return "the password must have at least \(minLength) characters" }
        guard password.count <= maxLength else { return "the password must have at most \(maxLength) characters" }
        if requireLetter, !password.contains(where: \.isLetter) { return "the password must contain a letter" }
        if requireDigit, !password.contains(where: \.isNumber) { return "the password must contain a digit" }
        return nil
    }
}

/// What a client (app) allows: its authenticators, PIN and password rules, devices per user and
/// passcode fallback. Set with `tessera admin client policy`; the SDK reads it to offer only what is
/// allowed, and the server enforces it.
public struct ClientPolicy: Codable, Sendable, Equatable {
    /// The authenticator types that may be registered (default: all).
    public var allowedAuthenticators: [AuthenticatorType]
    /// PIN rules.
    public var pin: PINRules
    /// Password rules.
    public var password: PasswordRules
    /// How many active devices a user may have; registering one more revokes the oldest (default 1).
    public var devicesPerUser: Int
    /// Whether biometric authenticators may fall back to the device passcode (default yes).
    public var allowDevicePasscodeFallback: Bool
    /// Whether each passkey sign-in needs a quorum of verifier nodes to verify the assertion on their own
    /// (default no: the server verifies it alone).
    public var passkeyNodeVerification: Bool

    /// Creates a policy.
    public init(
        allowedAuthenticators: [AuthenticatorType] = AuthenticatorType.allCases, pin: PINRules = PINRules(),
        password: PasswordRules = PasswordRules(), devicesPerUser: Int = 1, allowDevicePasscodeFallback: Bool = true,
        passkeyNodeVerification: Bool = false
    ) {
        self.allowedAuthenticators = allowedAuthenticators
        self.pin = pin
        self.password = password
        self.devicesPerUser = devicesPerUser
        self.allowDevicePasscodeFallback = allowDevicePasscodeFallback
        self.passkeyNodeVerification = passkeyNodeVerification
    }

    /// Decodes a policy; a missing member takes its default, and an explicit `null` is a wrong type (as the schema says).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = ClientPolicy()
        allowedAuthenticators = try c.member(.allowedAuthenticators, default: d.allowedAuthenticators)
        pin = try c.member(.pin, default: d.pin)
        password = try c.member(.password, default: d.password)
        devicesPerUser = try c.member(.devicesPerUser, default: d.devicesPerUser)
        allowDevicePasscodeFallback = try c.member(.allowDevicePasscodeFallback, default: d.allowDevicePasscodeFallback)
        passkeyNodeVerification = try c.member(.passkeyNodeVerification, default: d.passkeyNodeVerification)
    }

    /// Why the policy itself is unusable (for the admin), or nil.
    public var problem: String? {
        if allowedAuthenticators.isEmpty { return "allowedAuthenticators must name at least one authenticator" }
        if !(4...64).contains(pin.minLength) || pin.maxLength < pin.minLength || pin.maxLength > 64 {
            return "pin lengths must satisfy 4 ≤ minLength ≤ maxLength ≤ 64"
        }
        if !(1...1024).contains(password.minLength) || password.maxLength < password.minLength || password.maxLength > 1024 {
            return "password lengths must satisfy 1 ≤ minLength ≤ maxLength ≤ 1024"
        }
        if !(1...100).contains(devicesPerUser) { return "devicesPerUser must be 1–100" }
        return nil
    }
}

/// `POST /v1/devices/authenticators` body, signed (RFC 9421) by the device key.
///
/// `keySignature` is the authenticator key's ECDSA P-256 signature over
/// ``AuthenticatorRegistrationRequest/proofBytes(deviceId:aaid:publicKey:)`` (proof of possession).
/// A PIN or password is sent only so that the server can apply the client's rules; the server neither
/// stores nor logs it.
public struct AuthenticatorRegistrationRequest: Codable, Sendable, Equatable {
    /// The user the authenticator is registered for (the seed's `username`): the user key of the
    /// device's user. The server refuses any other (7208) and a request without it (1004).
    public var username: String?
    /// The authenticator's AAID (see ``AuthenticatorType/aaid``).
    public var aaid: String
    /// The authenticator's public key (P-256, X9.63, base64).
    public var publicKey: String
    /// The proof of possession (DER, base64).
    public var keySignature: String
    /// The PIN, for a PIN authenticator.
    public var pin: String?
    /// The password, for a password authenticator.
    public var password: String?
    /// Whether a biometric authenticator may fall back to the device passcode.
    public var allowDevicePasscodeAsFallback: Bool
    /// Whether new OS biometrics invalidate the authenticator.
    public var invalidateOnNewOsBiometrics: Bool
    /// The device's display name (the seed's `NMADeviceInformation.name`).
    public var deviceName: String?
    /// The push token, if it changed.
    public var pushToken: String?

    /// Creates a request.
    public init(
        username: String? = nil, aaid: String, publicKey: String, keySignature: String, pin: String? = nil, password: String? = nil,
        allowDevicePasscodeAsFallback: Bool = false, invalidateOnNewOsBiometrics: Bool = true, deviceName: String? = nil,
        pushToken: String? = nil
    ) {
        self.username = username
        self.aaid = aaid
        self.publicKey = publicKey
        self.keySignature = keySignature
        self.pin = pin
        self.password = password
        self.allowDevicePasscodeAsFallback = allowDevicePasscodeAsFallback
        self.invalidateOnNewOsBiometrics = invalidateOnNewOsBiometrics
        self.deviceName = deviceName
        self.pushToken = pushToken
    }

    /// The bytes the authenticator key signs to prove possession.
    public static func proofBytes(deviceId: String, aaid: String, publicKey: String) -> [UInt8] {
        Array("tessera-authenticator-v1\n\(deviceId)\n\(aaid)\n\(publicKey)".utf8)
    }
}

/// A registered authenticator.
public struct AuthenticatorInfo: Codable, Sendable, Equatable {
    /// The authenticator id (`atr_…`).
    public var id: String
    /// The device it belongs to.
    public var deviceId: String
    /// Its AAID.
    public var aaid: String
    /// Its type.
    public var type: AuthenticatorType
    /// Its public key (P-256, X9.63, base64).
    public var publicKey: String
    /// Whether it may fall back to the device passcode.
    public var allowDevicePasscodeAsFallback: Bool
    /// Whether new OS biometrics invalidate it.
    public var invalidateOnNewOsBiometrics: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Creates an entry.
    public init(
        id: String, deviceId: String, aaid: String, type: AuthenticatorType, publicKey: String,
        allowDevicePasscodeAsFallback: Bool, invalidateOnNewOsBiometrics: Bool, createdAt: Int64
    ) {
        self.id = id
        self.deviceId = deviceId
        self.aaid = aaid
        self.type = type
        self.publicKey = publicKey
        self.allowDevicePasscodeAsFallback = allowDevicePasscodeAsFallback
        self.invalidateOnNewOsBiometrics = invalidateOnNewOsBiometrics
        self.createdAt = createdAt
    }
}

/// Authenticators of a device or user.
public struct AuthenticatorList: Codable, Sendable, Equatable {
    /// Oldest first.
    public var authenticators: [AuthenticatorInfo]
    /// Creates a list.
    public init(authenticators: [AuthenticatorInfo]) { self.authenticators = authenticators }
}

extension KeyedDecodingContainer {
    /// A member that may be missing (then `fallback`); an explicit `null` is a wrong type, as the OpenAPI schema says.
    func member<T: Decodable>(_ key: Key, default fallback: T) throws -> T {
        contains(key) ? try decode(T.self, forKey: key) : fallback
    }
}
