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
        Data(mac(secret, domain: domain)).hexString
    }

    /// Whether `secret` hashes to `expectedHash`, compared in constant time. The digest is compared
    /// with the stored hex digit by digit, without building its hex string (the hex and the byte
    /// copies were about half of a client's authentication on each introspection).
    public func verify(_ secret: String, domain: String, against expectedHash: String) -> Bool {
        let digest = mac(secret, domain: domain)
        var expected = expectedHash
        return expected.withUTF8 { expected in
            digest.withUnsafeBytes { digest in
                guard expected.count == digest.count * 2 else { return false }
                var difference: UInt8 = 0
                for index in 0..<digest.count {
                    let byte = digest[index]
                    difference |= expected[2 * index] ^ Self.hexDigits[Int(byte >> 4)]
                    difference |= expected[2 * index + 1] ^ Self.hexDigits[Int(byte & 0x0F)]
                }
                return difference == 0
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// HMAC of domain, 0, secret, in one update (each `update` walks its argument's regions generically).
    private func mac(_ secret: String, domain: String) -> HashedAuthenticationCode<SHA256> {
        var hmac = keyed
        var message = Array(domain.utf8)
        message.append(0)
        message.append(contentsOf: secret.utf8)
        hmac.update(data: message)
        return hmac.finalize()
    }
}

