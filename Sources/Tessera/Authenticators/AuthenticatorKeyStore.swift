import Crypto
import Foundation
import TesseraCore
import Synchronization

/// Where the keys of a device's authenticators live: one P-256 key pair per ``AuthenticatorType``,
/// generated in the store and never exported (callers get public keys and signatures only).
///
/// PIN and password keys are usable only with the PIN or password they were generated with
/// (`unlockSecret`). A biometric key generated with a `biometricDomainState` is bound to it: signing
/// with a different current domain state deletes the key and throws
/// ``FidoErrorCode/keyDisappearedPermanently`` (what a Secure Enclave key created with
/// `.biometryCurrentSet` does on Apple platforms), and so does every later use until a new key is
/// generated.
///
/// Implementations: ``MemoryAuthenticatorKeyStore`` and ``FileAuthenticatorKeyStore``.
public protocol AuthenticatorKeyStore: Sendable {
    /// Generates the key of `type`, replacing any, and returns its public key.
    /// - Parameters:
    ///   - type: The authenticator type.
    ///   - unlockSecret: The PIN or password that will unlock the key (PIN and password types).
    ///   - biometricDomainState: The OS biometric domain state to bind the key to, or nil for no binding.
    func generate(for type: AuthenticatorType, unlockSecret: String?, biometricDomainState: Data?) throws -> P256.Signing.PublicKey
    /// Signs `data` with the key of `type`.
    /// - Parameters:
    ///   - type: The authenticator type.
    ///   - data: The bytes to sign.
    ///   - unlockSecret: The PIN or password (PIN and password types).
    ///   - currentBiometricDomainState: The OS biometric domain state now (bound keys).
    /// - Throws: ``FidoErrorCode/noSuitableAuthenticator`` without key, ``FidoErrorCode/authenticatorAccessDenied``
    ///   with a wrong secret or no current domain state for a bound key, ``FidoErrorCode/keyDisappearedPermanently``
    ///   when the key was invalidated.
    func sign(
        _ type: AuthenticatorType, data: Data, unlockSecret: String?, currentBiometricDomainState: Data?
    ) throws -> P256.Signing.ECDSASignature
    /// The public key of `type`, nil when there is no usable key.
    func publicKey(for type: AuthenticatorType) throws -> P256.Signing.PublicKey?
    /// Deletes the key of `type` (nothing happens when there is none).
    func delete(_ type: AuthenticatorType) throws
}

/// A ``DeviceKeyStore`` that knows where the matching ``AuthenticatorKeyStore`` is.
/// ``FileKeyStore`` (a subdirectory `authenticators`) and ``MemoryKeyStore`` (a memory store tied to the
/// instance) conform; conform a custom device key store to choose its authenticator key store.
public protocol AuthenticatorKeyStoreProviding {
    /// The authenticator key store that goes with this device key store.
    var authenticatorKeyStore: any AuthenticatorKeyStore { get }
}

extension FileKeyStore: AuthenticatorKeyStoreProviding {
    /// A ``FileAuthenticatorKeyStore`` in the subdirectory `authenticators` of ``directory``.
    public var authenticatorKeyStore: any AuthenticatorKeyStore {
        FileAuthenticatorKeyStore(directory: directory.appendingPathComponent("authenticators", isDirectory: true))
    }
}

extension MemoryKeyStore: AuthenticatorKeyStoreProviding {
    /// A ``MemoryAuthenticatorKeyStore`` tied to this instance (the same one on every access).
    public var authenticatorKeyStore: any AuthenticatorKeyStore { AuthenticatorKeyStoreRegistry.store(for: self) }
}

/// Memory authenticator key stores for device key stores that are objects, one per object, released
/// with it.
enum AuthenticatorKeyStoreRegistry {
    private struct Entry {
        weak var owner: (any DeviceKeyStore & AnyObject)?
        let store: MemoryAuthenticatorKeyStore
    }

    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    static func store(for owner: any DeviceKeyStore & AnyObject) -> MemoryAuthenticatorKeyStore {
        entries.withLock { entries in
            let id = ObjectIdentifier(owner)
            if let entry = entries[id], entry.owner === owner { return entry.store }
            entries = entries.filter { $0.value.owner != nil }
            let store = MemoryAuthenticatorKeyStore()
            entries[id] = Entry(owner: owner, store: store)
            return store
        }
    }
}

extension AuthenticatorType {
    /// Whether the key of this type is sealed under the PIN or password.
    var needsUnlockSecret: Bool { self == .pin || self == .password }
}
