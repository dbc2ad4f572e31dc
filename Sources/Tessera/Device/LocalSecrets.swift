import Crypto
import Foundation
import _CryptoExtras
import TesseraCore

/// What the SDK's file-backed stores share: private files written atomically, random salts, and keys
/// sealed (AES-GCM) under a key derived with scrypt from a PIN or password.
enum LocalSecrets {
    /// 16 random bytes from the system's CSPRNG.
    static func randomSalt() -> Data { Data((0..<16).map { _ in UInt8.random(in: 0...255) }) }

    /// Writes `data` to `path` readable by the owner only (0600). rename(2) replaces the old file
    /// atomically: a crash leaves the old content or the new one.
    static func writePrivately(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The key that seals under `secret` (scrypt N = 2^14, r = 8, p = 1); no secret seals under the empty one.
    static func wrappingKey(_ secret: String?, salt: Data) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(from: Data((secret ?? "").utf8), salt: salt, outputByteCount: 32, rounds: 1 << 14, blockSize: 8, parallelism: 1)
    }

    /// `raw` sealed under `secret` (AES-GCM, combined form).
    static func seal(_ raw: Data, under secret: String?, salt: Data) throws -> Data {
        try Sealing.seal(raw, using: wrappingKey(secret, salt: salt))
    }

    /// What `seal` sealed, or nil when `secret` is not the one it was sealed under (or the box is damaged).
    static func open(_ sealed: Data, under secret: String?, salt: Data) -> Data? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed), let key = try? wrappingKey(secret, salt: salt) else { return nil }
        return try? AES.GCM.open(box, using: key)
    }
}
