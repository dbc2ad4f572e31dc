import Crypto
import Foundation
import Synchronization
import TesseraCore

/// What the SDK keeps on the device after sign-up: the seed's `BSA.load…` values and the two keys.
public struct DeviceState: Codable, Sendable, Equatable {
    /// The device ID the server assigned.
    public var deviceId: String
    /// The user ID.
    public var userKey: String
    /// The TOTP secret (base32).
    public var totpSecret: String
    /// The push token registered with the server.
    public var pushToken: String
    /// The local authentication type chosen at sign-up.
    public var localAuthType: LocalAuthType
    /// The biometric domain state when the device enrolled (biometric local authentication), so that
    /// a later prompt with `checkDomainStateChanged` can tell that the enrolled biometrics changed.
    public var domainState: Data?
    /// The key ID (base64) of the device's App Attest key once the server accepted its attestation
    /// (``TesseraClient/requestAppAttestation(using:)``); nil before, and after a new enrolment.
    public var appAttestKeyId: String?

    /// Creates a state.
    public init(
        deviceId: String, userKey: String, totpSecret: String, pushToken: String, localAuthType: LocalAuthType, domainState: Data? = nil,
        appAttestKeyId: String? = nil
    ) {
        self.deviceId = deviceId
        self.userKey = userKey
        self.totpSecret = totpSecret
        self.pushToken = pushToken
        self.localAuthType = localAuthType
        self.domainState = domainState
        self.appAttestKeyId = appAttestKeyId
    }
}

/// Where the device key, the user-verification key and the device state live. Keys are generated in
/// the store and never leave it: callers get signatures and public keys only.
public protocol DeviceKeyStore: Sendable {
    /// Creates fresh device and user-verification keys (replacing any), returning their public keys.
    /// `unlockSecret` protects the user-verification key where the store supports it (PIN or password).
    func generateKeys(unlockSecret: String?) throws -> (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey)
    /// Creates fresh keys for an enrolment whose local authentication is `localAuthType`, so that a store
    /// can fit the user-verification key's access control to it (``KeychainDeviceKeyStore``). The default
    /// calls ``generateKeys(unlockSecret:)``.
    func generateKeys(
        unlockSecret: String?, localAuthType: LocalAuthType
    ) throws -> (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey)
    /// Signs with the device key (possession).
    func signWithDeviceKey(_ data: Data) throws -> P256.Signing.ECDSASignature
    /// Signs with the user-verification key, which needs the secret local authentication yielded.
    func signWithUserVerificationKey(_ data: Data, unlockSecret: String?) throws -> P256.Signing.ECDSASignature
    /// The device key's public half, if keys exist.
    func deviceKeyPublic() throws -> P256.Signing.PublicKey?
    /// Saves the device state.
    func saveState(_ state: DeviceState) throws
    /// The saved state, if any.
    func loadState() throws -> DeviceState?
}

extension DeviceKeyStore {
    /// Calls ``generateKeys(unlockSecret:)``: the store does not look at the local-auth type.
    public func generateKeys(
        unlockSecret: String?, localAuthType: LocalAuthType
    ) throws -> (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey) {
        try generateKeys(unlockSecret: unlockSecret)
    }
}

/// Errors of a key store.
public enum KeyStoreError: Error, Sendable, Equatable {
    /// No keys have been generated yet.
    case noKeys
    /// The user-verification key cannot be unlocked with this secret.
    case locked
}

/// A key store in memory, for tests and short-lived tools.
public final class MemoryKeyStore: DeviceKeyStore, SessionVault, Sendable {
    private struct Contents {
        var device: P256.Signing.PrivateKey?
        var userVerification: P256.Signing.PrivateKey?
        var state: DeviceState?
        var session: StoredSession?
    }

    private let contents = Mutex(Contents())

    /// Creates an empty store.
    public init() {}

    public func generateKeys(unlockSecret: String?) throws -> (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey) {
        let device = P256.Signing.PrivateKey(), userVerification = P256.Signing.PrivateKey()
        contents.withLock {
            $0.device = device
            $0.userVerification = userVerification
        }
        return (device.publicKey, userVerification.publicKey)
    }

    public func signWithDeviceKey(_ data: Data) throws -> P256.Signing.ECDSASignature {
        guard let key = contents.withLock({ $0.device }) else { throw KeyStoreError.noKeys }
        return try key.signature(for: data)
    }

    public func signWithUserVerificationKey(_ data: Data, unlockSecret: String?) throws -> P256.Signing.ECDSASignature {
        guard let key = contents.withLock({ $0.userVerification }) else { throw KeyStoreError.noKeys }
        return try key.signature(for: data)
    }

    public func deviceKeyPublic() throws -> P256.Signing.PublicKey? { contents.withLock { $0.device?.publicKey } }
    public func saveState(_ state: DeviceState) throws { contents.withLock { $0.state = state } }
    public func loadState() throws -> DeviceState? { contents.withLock { $0.state } }
    func saveSession(_ session: StoredSession?) throws { contents.withLock { $0.session = session } }
    func loadSession() throws -> StoredSession? { contents.withLock { $0.session } }
}

/// A key store in a directory (mode 0700, files 0600) for Linux devices and the CLI. The
/// user-verification key is sealed (AES-GCM) under a key derived with scrypt from the PIN or
/// password, so it cannot sign without local authentication. The session is sealed (AES-GCM) under a
/// random key of its own in `session.key`, so `session.sealed` alone tells nothing.
public struct FileKeyStore: DeviceKeyStore, SessionVault {
    /// The directory.
    public let directory: URL

    /// Creates a store in `directory` (created if missing).
    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The store ``TesseraClient`` uses when given none: ``standardDirectory(for:environment:)``,
    /// created at the first write.
    public init(standardFor configuration: TesseraClient.Configuration) {
        directory = Self.standardDirectory(for: configuration)
    }

    /// Where an app's device state lives by default, one directory per server, client key and bundle
    /// identifier: on Apple platforms under Application Support, elsewhere under `$XDG_DATA_HOME`
    /// (default `~/.local/share`), each in `tessera/`.
    public static func standardDirectory(
        for configuration: TesseraClient.Configuration, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        let identity = SHA256.hash(data: Data("\(configuration.serverURL.absoluteString)|\(configuration.clientKey)".utf8))
            .prefix(8).map { String(format: "%02x", $0) }.joined()
        let name = configuration.bundleIdentifier.filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }.prefix(100) + "-" + identity
        #if os(Linux)
        let base = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        #else
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support")
        #endif
        return base.appendingPathComponent("tessera").appendingPathComponent(String(name))
    }

    struct Keys: Codable {
        var device: Data
        var userVerificationSealed: Data
        var userVerificationPublic: Data
        var salt: Data
    }

    private var keysFile: URL { directory.appendingPathComponent("keys.json") }
    private var stateFile: URL { directory.appendingPathComponent("device.json") }
    /// Where versions before 0.2 kept the session in clear; moved into `session.sealed` when read.
    private var plainSessionFile: URL { directory.appendingPathComponent("session.json") }
    private var sessionFile: URL { directory.appendingPathComponent("session.sealed") }
    private var sessionKeyFile: URL { directory.appendingPathComponent("session.key") }

    private func write(_ data: Data, to url: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try LocalSecrets.writePrivately(data, to: url.path)
    }

    private func loadKeys() throws -> Keys {
        guard let data = FileManager.default.contents(atPath: keysFile.path) else { throw KeyStoreError.noKeys }
        return try JSONDecoder().decode(Keys.self, from: data)
    }

    public func generateKeys(unlockSecret: String?) throws -> (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey) {
        let device = P256.Signing.PrivateKey(), userVerification = P256.Signing.PrivateKey()
        let salt = LocalSecrets.randomSalt()
        let sealed = try LocalSecrets.seal(userVerification.rawRepresentation, under: unlockSecret, salt: salt)
        let keys = Keys(
            device: device.rawRepresentation, userVerificationSealed: sealed,
            userVerificationPublic: userVerification.publicKey.x963Representation, salt: salt
        )
        try write(try JSONEncoder().encode(keys), to: keysFile)
        return (device.publicKey, userVerification.publicKey)
    }

    public func signWithDeviceKey(_ data: Data) throws -> P256.Signing.ECDSASignature {
        try P256.Signing.PrivateKey(rawRepresentation: try loadKeys().device).signature(for: data)
    }

    public func signWithUserVerificationKey(_ data: Data, unlockSecret: String?) throws -> P256.Signing.ECDSASignature {
        let keys = try loadKeys()
        guard let raw = LocalSecrets.open(keys.userVerificationSealed, under: unlockSecret, salt: keys.salt) else { throw KeyStoreError.locked }
        return try P256.Signing.PrivateKey(rawRepresentation: raw).signature(for: data)
    }

    public func deviceKeyPublic() throws -> P256.Signing.PublicKey? {
        guard FileManager.default.fileExists(atPath: keysFile.path) else { return nil }
        return try P256.Signing.PrivateKey(rawRepresentation: try loadKeys().device).publicKey
    }

    public func saveState(_ state: DeviceState) throws { try write(try JSONEncoder().encode(state), to: stateFile) }

    public func loadState() throws -> DeviceState? {
        guard let data = FileManager.default.contents(atPath: stateFile.path) else { return nil }
        return try JSONDecoder().decode(DeviceState.self, from: data)
    }

    /// The key the session is sealed under, created at the first save.
    private func sessionKey(creating: Bool) throws -> SymmetricKey? {
        if let data = FileManager.default.contents(atPath: sessionKeyFile.path), data.count == 32 { return SymmetricKey(data: data) }
        guard creating else { return nil }
        let key = SymmetricKey(size: .bits256)
        try write(key.withUnsafeBytes { Data($0) }, to: sessionKeyFile)
        return key
    }

    func saveSession(_ session: StoredSession?) throws {
        let files = FileManager.default
        if files.fileExists(atPath: plainSessionFile.path) { try files.removeItem(at: plainSessionFile) }
        guard let session else {
            for file in [sessionFile, sessionKeyFile] where files.fileExists(atPath: file.path) { try files.removeItem(at: file) }
            return
        }
        guard let key = try sessionKey(creating: true) else { throw KeyStoreError.noKeys }
        try write(try Sealing.seal(try JSONEncoder().encode(session), using: key), to: sessionFile)
    }

    func loadSession() throws -> StoredSession? {
        if let plain = FileManager.default.contents(atPath: plainSessionFile.path) {
            let session = try JSONDecoder().decode(StoredSession.self, from: plain)
            try saveSession(session)  // seals it and removes the clear copy
            return session
        }
        guard let sealed = FileManager.default.contents(atPath: sessionFile.path) else { return nil }
        guard let key = try sessionKey(creating: false), let box = try? AES.GCM.SealedBox(combined: sealed),
              let json = try? AES.GCM.open(box, using: key)
        else { throw KeyStoreError.locked }
        return try JSONDecoder().decode(StoredSession.self, from: json)
    }
}
