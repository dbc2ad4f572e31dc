import Crypto
import Foundation
import TesseraCore
import Synchronization

/// An ``AuthenticatorKeyStore`` in memory, for tests and short-lived tools. PIN and password keys
/// check the secret (an HMAC of it) before signing.
public final class MemoryAuthenticatorKeyStore: AuthenticatorKeyStore, Sendable {
    private struct Entry {
        var key: P256.Signing.PrivateKey
        var salt: Data
        var secretCheck: Data?
        var biometricDomainState: Data?
    }

    private struct Keys {
        var entries: [AuthenticatorType: Entry] = [:]
        var invalidated: Set<AuthenticatorType> = []
    }

    private let keys = Mutex(Keys())

    /// Creates an empty store.
    public init() {}

    private static func check(_ secret: String?, salt: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data((secret ?? "").utf8), using: SymmetricKey(data: salt)))
    }

    /// Generates the key of `type`, replacing any.
    public func generate(for type: AuthenticatorType, unlockSecret: String?, biometricDomainState: Data?) throws -> P256.Signing.PublicKey {
        let key = P256.Signing.PrivateKey()
        let salt = LocalSecrets.randomSalt()
        let entry = Entry(
            key: key, salt: salt, secretCheck: type.needsUnlockSecret ? Self.check(unlockSecret, salt: salt) : nil,
            biometricDomainState: biometricDomainState
        )
        keys.withLock {
            $0.entries[type] = entry
            $0.invalidated.remove(type)
        }
        return key.publicKey
    }

    /// Signs with the key of `type`; see ``AuthenticatorKeyStore/sign(_:data:unlockSecret:currentBiometricDomainState:)``.
    public func sign(
        _ type: AuthenticatorType, data: Data, unlockSecret: String?, currentBiometricDomainState: Data?
    ) throws -> P256.Signing.ECDSASignature {
        let key: P256.Signing.PrivateKey = try keys.withLock { keys in
            guard let entry = keys.entries[type] else {
                throw keys.invalidated.contains(type) ? FidoErrorCode.keyDisappearedPermanently : FidoErrorCode.noSuitableAuthenticator
            }
            if let bound = entry.biometricDomainState {
                guard let current = currentBiometricDomainState else { throw FidoErrorCode.authenticatorAccessDenied }
                guard current == bound else {
                    keys.entries[type] = nil
                    keys.invalidated.insert(type)
                    throw FidoErrorCode.keyDisappearedPermanently
                }
            }
            if let expected = entry.secretCheck,
               !SoftwareSecretAuthenticator.constantTimeEquals(Self.check(unlockSecret, salt: entry.salt), expected) {
                throw FidoErrorCode.authenticatorAccessDenied
            }
            return entry.key
        }
        return try key.signature(for: data)
    }

    /// The public key of `type`, nil when there is none.
    public func publicKey(for type: AuthenticatorType) throws -> P256.Signing.PublicKey? {
        keys.withLock { $0.entries[type]?.key.publicKey }
    }

    /// Deletes the key of `type`.
    public func delete(_ type: AuthenticatorType) throws {
        keys.withLock {
            $0.entries[type] = nil
            $0.invalidated.remove(type)
        }
    }
}
