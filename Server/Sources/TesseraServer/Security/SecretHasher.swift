import Crypto
import Foundation

/// Keyed hashing of secrets (OTP codes, dispose tokens, client secrets, admin tokens).
///
/// HMAC-SHA-256 under a server key that lives only in the sealed key store, with a domain label per
/// kind of secret so a hash of one kind can never be replayed as another. Comparison is constant time.
public struct SecretHasher: Sendable {
    /// The HMAC with its key already absorbed: each hash starts from a copy of it.
    private let keyed: HMAC<SHA256>

    public init(key: SymmetricKey) { self.keyed = HMAC<SHA256>(key: key) }

    /// The keyed hash of `secret` for `domain`, hex-encoded.
    public func hash(_ secret: String, domain: String) -> String {
        var hmac = keyed
        // One update of domain, 0, secret: each `update` walks its argument's regions generically.
        var message = Array(domain.utf8)
        message.append(0)
        message.append(contentsOf: secret.utf8)
        hmac.update(data: message)
        return Data(hmac.finalize()).hexString
    }

    /// Whether `secret` hashes to `expectedHash`, compared in constant time.
    public func verify(_ secret: String, domain: String, against expectedHash: String) -> Bool {
        constantTimeEquals(Array(hash(secret, domain: domain).utf8), Array(expectedHash.utf8))
    }
}

extension Data {
    /// Lower-case hex, built in one buffer (`String(format:)` per byte was a tenth of a TOTP verify's CPU).
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: count * 2) { buffer in
            var index = 0
            for byte in self {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
