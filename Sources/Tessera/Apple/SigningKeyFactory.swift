import Crypto
import Foundation

/// Which key store the SDK uses (``TesseraClient/keyStoreKind``).
public enum KeyStoreKind: String, Sendable, Equatable, CaseIterable {
    /// Keys in the Secure Enclave, blobs and state in the Keychain (`SecureEnclaveKeyStore`).
    case secureEnclave
    /// Software P-256 keys and state in the Keychain, where no Secure Enclave exists (`KeychainKeyStore`).
    case keychain
    /// Files in a directory (``FileKeyStore``).
    case file
    /// Memory (``MemoryKeyStore``).
    case memory
    /// An app's own ``DeviceKeyStore``.
    case custom
}

/// The seam over how P-256 signing keys are made and used: the Secure Enclave on Apple devices
/// (`SecureEnclaveSigningKeys`), software elsewhere (``SoftwareSigningKeys``). A key is known by its
/// blob: the Secure Enclave's `dataRepresentation` (useless off the device) or the raw private key.
public protocol SigningKeyFactory: Sendable {
    /// The store kind these keys make.
    var kind: KeyStoreKind { get }
    /// Makes a key whose use needs `accessControl` (``AccessControlFlags``); returns its blob.
    func makeKey(accessControl: AccessControlFlags) throws -> Data
    /// The public key of the key `blob`.
    func publicKey(blob: Data) throws -> P256.Signing.PublicKey
    /// Signs `data` with the key `blob` (a key that needs the user makes the system prompt).
    func signature(for data: Data, blob: Data) throws -> P256.Signing.ECDSASignature
}

/// Software P-256 keys (swift-crypto or CryptoKit): for where no Secure Enclave exists, such as the
/// Simulator. Access control is not enforced by the key; the store's local authentication guards it.
public struct SoftwareSigningKeys: SigningKeyFactory {
    /// Creates the factory.
    public init() {}

    /// ``KeyStoreKind/keychain``.
    public var kind: KeyStoreKind { .keychain }

    /// A fresh key's raw representation.
    public func makeKey(accessControl: AccessControlFlags) throws -> Data { P256.Signing.PrivateKey().rawRepresentation }

    /// The public key of the raw key `blob`.
    public func publicKey(blob: Data) throws -> P256.Signing.PublicKey {
        try P256.Signing.PrivateKey(rawRepresentation: blob).publicKey
    }

    /// Signs with the raw key `blob`.
    public func signature(for data: Data, blob: Data) throws -> P256.Signing.ECDSASignature {
        try P256.Signing.PrivateKey(rawRepresentation: blob).signature(for: data)
    }
}
