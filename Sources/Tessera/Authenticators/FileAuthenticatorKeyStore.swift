import Crypto
import Foundation
import TesseraCore

/// An ``AuthenticatorKeyStore`` in a directory (mode 0700), one file per authenticator type (mode
/// 0600), for Linux devices and the CLI. PIN and password keys are sealed (AES-GCM) under a key derived
/// with scrypt from the PIN or password, as ``FileKeyStore`` seals its user-verification key; the other
/// keys are stored as they are (the directory's permissions protect them). An invalidated biometric key
/// is erased and leaves a marker, so that later uses keep failing with
/// ``FidoErrorCode/keyDisappearedPermanently``.
public struct FileAuthenticatorKeyStore: AuthenticatorKeyStore {
    /// The directory (created on first write).
    public let directory: URL

    /// Creates a store in `directory`.
    public init(directory: URL) { self.directory = directory }

    struct Record: Codable {
        var type: AuthenticatorType
        var publicKey: Data?
        var privateKey: Data?
        var sealedPrivateKey: Data?
        var salt: Data?
        var biometricDomainState: Data?
        var invalidated: Bool
    }

    private func file(_ type: AuthenticatorType) -> URL { directory.appendingPathComponent("\(type.rawValue).json") }

    private func write(_ record: Record) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try LocalSecrets.writePrivately(try JSONEncoder().encode(record), to: file(record.type).path)
    }

    private func read(_ type: AuthenticatorType) throws -> Record? {
        guard let data = FileManager.default.contents(atPath: file(type).path) else { return nil }
        return try JSONDecoder().decode(Record.self, from: data)
    }

    /// Generates the key of `type`, replacing any; PIN and password keys are sealed under `unlockSecret`.
    public func generate(for type: AuthenticatorType, unlockSecret: String?, biometricDomainState: Data?) throws -> P256.Signing.PublicKey {
        let key = P256.Signing.PrivateKey()
        var record = Record(
            type: type, publicKey: key.publicKey.x963Representation, biometricDomainState: biometricDomainState, invalidated: false
        )
        if type.needsUnlockSecret {
            let salt = LocalSecrets.randomSalt()
            record.salt = salt
            record.sealedPrivateKey = try LocalSecrets.seal(key.rawRepresentation, under: unlockSecret, salt: salt)
        } else {
            record.privateKey = key.rawRepresentation
        }
        try write(record)
        return key.publicKey
    }

    /// Signs with the key of `type`; see ``AuthenticatorKeyStore/sign(_:data:unlockSecret:currentBiometricDomainState:)``.
    public func sign(
        _ type: AuthenticatorType, data: Data, unlockSecret: String?, currentBiometricDomainState: Data?
    ) throws -> P256.Signing.ECDSASignature {
        guard let record = try read(type) else { throw FidoErrorCode.noSuitableAuthenticator }
        if record.invalidated { throw FidoErrorCode.keyDisappearedPermanently }
        if let bound = record.biometricDomainState {
            guard let current = currentBiometricDomainState else { throw FidoErrorCode.authenticatorAccessDenied }
            guard current == bound else {
                try write(Record(type: type, invalidated: true))
                throw FidoErrorCode.keyDisappearedPermanently
            }
        }
        let raw: Data
        if let sealed = record.sealedPrivateKey, let salt = record.salt {
            guard let opened = LocalSecrets.open(sealed, under: unlockSecret, salt: salt) else { throw FidoErrorCode.authenticatorAccessDenied }
            raw = opened
        } else if let plain = record.privateKey {
            raw = plain
        } else {
            throw FidoErrorCode.noSuitableAuthenticator
        }
        return try P256.Signing.PrivateKey(rawRepresentation: raw).signature(for: data)
    }

    /// The public key of `type`, nil when there is no usable key.
    public func publicKey(for type: AuthenticatorType) throws -> P256.Signing.PublicKey? {
        guard let record = try read(type), !record.invalidated, let data = record.publicKey else { return nil }
        return try P256.Signing.PublicKey(x963Representation: data)
    }

    /// Deletes the key of `type` (and any invalidation marker).
    public func delete(_ type: AuthenticatorType) throws {
        let path = file(type).path
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }
}
