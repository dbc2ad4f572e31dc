import Crypto
import Foundation

/// A ``DeviceKeyStore`` whose keys come from a ``SigningKeyFactory`` and whose key blobs, device
/// state and session are Keychain items (``KeychainItems``): `SecureEnclaveKeyStore` and
/// `KeychainKeyStore` on Apple platforms are this store over the real seams; the Linux tests run it
/// over fakes.
///
/// The device key needs no prompt. The user-verification key gets the access control that
/// ``AccessControlFlags/userVerificationKey(localAuthType:invalidateOnNewOsBiometrics:passcodeFallback:secureEnclave:)``
/// chooses for the local-auth type of the sign-up; for `PIN` and `PASSWORD` its blob is sealed
/// (AES-GCM under scrypt) with the PIN or password, as in ``FileKeyStore``.
public final class KeychainDeviceKeyStore<Keys: SigningKeyFactory>: DeviceKeyStore, SessionVault, Sendable {
    /// The Keychain items.
    public let items: KeychainItems
    /// The key factory.
    public let keys: Keys
    /// Bind a biometric user-verification key to the biometry enrolled at sign-up (`.biometryCurrentSet`).
    public let invalidateOnNewOsBiometrics: Bool
    /// Let the device passcode unlock a biometric user-verification key (`.userPresence`).
    public let passcodeFallback: Bool

    /// The user-verification key's item: the blob, sealed under the PIN or password when there is one.
    struct UserVerificationItem: Codable {
        var blob: Data
        var salt: Data?
    }

    /// Creates a store.
    /// - Parameters:
    ///   - items: Where the items go.
    ///   - keys: What makes the keys.
    ///   - invalidateOnNewOsBiometrics: See ``invalidateOnNewOsBiometrics``.
    ///   - passcodeFallback: See ``passcodeFallback``.
    public init(items: KeychainItems, keys: Keys, invalidateOnNewOsBiometrics: Bool = true, passcodeFallback: Bool = false) {
        self.items = items
        self.keys = keys
        self.invalidateOnNewOsBiometrics = invalidateOnNewOsBiometrics
        self.passcodeFallback = passcodeFallback
    }

    /// The store kind (``KeyStoreKind/secureEnclave`` or ``KeyStoreKind/keychain``).
    public var kind: KeyStoreKind { keys.kind }

    /// Generates keys for a sign-up whose local-auth type is not known: `PIN` when there is an unlock
    /// secret, else `PASSCODE` (`.userPresence`, which biometry also satisfies).
    public func generateKeys(unlockSecret: String?) throws -> (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey) {
        try generateKeys(unlockSecret: unlockSecret, localAuthType: unlockSecret == nil ? .passcode : .pin)
    }

    /// Generates the device key and a user-verification key whose access control fits `localAuthType`.
    public func generateKeys(
        unlockSecret: String?, localAuthType: LocalAuthType
    ) throws -> (device: P256.Signing.PublicKey, userVerification: P256.Signing.PublicKey) {
        let secureEnclave = keys.kind == .secureEnclave
        let device = try keys.makeKey(accessControl: .deviceKey(secureEnclave: secureEnclave))
        let userVerification = try keys.makeKey(accessControl: .userVerificationKey(
            localAuthType: localAuthType, invalidateOnNewOsBiometrics: invalidateOnNewOsBiometrics,
            passcodeFallback: passcodeFallback, secureEnclave: secureEnclave
        ))
        var item = UserVerificationItem(blob: userVerification, salt: nil)
        if let unlockSecret {
            let salt = LocalSecrets.randomSalt()
            item = UserVerificationItem(blob: try LocalSecrets.seal(userVerification, under: unlockSecret, salt: salt), salt: salt)
        }
        let publicKeys = (try keys.publicKey(blob: device), try keys.publicKey(blob: userVerification))
        try items.write(device, account: KeychainAccount.deviceKey)
        try items.write(try JSONEncoder().encode(item), account: KeychainAccount.userVerificationKey)
        return publicKeys
    }

    /// Signs with the device key.
    public func signWithDeviceKey(_ data: Data) throws -> P256.Signing.ECDSASignature {
        guard let blob = try items.read(account: KeychainAccount.deviceKey) else { throw KeyStoreError.noKeys }
        return try keys.signature(for: data, blob: blob)
    }

    /// Signs with the user-verification key. A Secure Enclave key with `.biometryCurrentSet` or
    /// `.userPresence` makes the system prompt (Face ID, Touch ID or the passcode) at this point.
    public func signWithUserVerificationKey(_ data: Data, unlockSecret: String?) throws -> P256.Signing.ECDSASignature {
        guard let stored = try items.read(account: KeychainAccount.userVerificationKey) else { throw KeyStoreError.noKeys }
        let item = try JSONDecoder().decode(UserVerificationItem.self, from: stored)
        var blob = item.blob
        if let salt = item.salt {
            guard let opened = LocalSecrets.open(item.blob, under: unlockSecret, salt: salt) else { throw KeyStoreError.locked }
            blob = opened
        }
        return try keys.signature(for: data, blob: blob)
    }

    /// The device key's public half, nil before sign-up.
    public func deviceKeyPublic() throws -> P256.Signing.PublicKey? {
        try items.read(account: KeychainAccount.deviceKey).map { try keys.publicKey(blob: $0) }
    }

    /// Saves the device state as a Keychain item.
    public func saveState(_ state: DeviceState) throws { try items.write(try JSONEncoder().encode(state), account: KeychainAccount.state) }

    /// The saved device state, if any.
    public func loadState() throws -> DeviceState? {
        try items.read(account: KeychainAccount.state).map { try JSONDecoder().decode(DeviceState.self, from: $0) }
    }

    func saveSession(_ session: StoredSession?) throws {
        guard let session else { return try items.delete(account: KeychainAccount.session) }
        try items.write(try JSONEncoder().encode(session), account: KeychainAccount.session)
    }

    func loadSession() throws -> StoredSession? {
        try items.read(account: KeychainAccount.session).map { try JSONDecoder().decode(StoredSession.self, from: $0) }
    }
}

/// The Keychain accounts of a ``KeychainDeviceKeyStore``'s items.
enum KeychainAccount {
    static let deviceKey = "device-key"
    static let userVerificationKey = "user-verification-key"
    static let state = "device-state"
    static let session = "session"
}
