#if canImport(CryptoKit) && canImport(Security) && canImport(LocalAuthentication)
import CryptoKit
import Foundation
import LocalAuthentication
import Security

/// The ``SigningKeyFactory`` seam over CryptoKit's `SecureEnclave.P256.Signing.PrivateKey`: keys made
/// in the Secure Enclave with a `SecAccessControl` built from ``AccessControlFlags``; the blob is the
/// key's `dataRepresentation`, which only this device's Secure Enclave can use.
public struct SecureEnclaveSigningKeys: SigningKeyFactory {
    /// Creates the factory.
    public init() {}

    /// Whether this device has a Secure Enclave (false in the Simulator).
    public static var isAvailable: Bool { SecureEnclave.isAvailable }

    /// ``KeyStoreKind/secureEnclave``.
    public var kind: KeyStoreKind { .secureEnclave }

    /// A new Secure Enclave key, usable while the device is unlocked, on this device only, under `accessControl`.
    public func makeKey(accessControl: AccessControlFlags) throws -> Data {
        guard let access = SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, SecAccessControlCreateFlags(rawValue: accessControl.rawValue), nil
        ) else {
            throw KeychainError(operation: "SecAccessControlCreateWithFlags", status: KeychainStatus.param.rawValue)
        }
        return try SecureEnclave.P256.Signing.PrivateKey(accessControl: access).dataRepresentation
    }

    /// The public key of the key `blob`.
    public func publicKey(blob: Data) throws -> P256.Signing.PublicKey {
        try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).publicKey
    }

    /// Signs in the Secure Enclave (the system prompts when the key's access control needs the user).
    public func signature(for data: Data, blob: Data) throws -> P256.Signing.ECDSASignature {
        try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: data)
    }
}
#endif
