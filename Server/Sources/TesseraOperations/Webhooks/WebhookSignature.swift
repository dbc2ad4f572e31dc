import Crypto
import Foundation

/// Standard Webhooks signing (https://www.standardwebhooks.com): a secret is `whsec_` and the
/// base64 of its key bytes; a signature is `v1,` and the base64 of HMAC-SHA256 over
/// `"<webhook-id>.<webhook-timestamp>.<body>"`; `webhook-signature` holds one per current secret,
/// separated by spaces (two during a rotation overlap).
package enum WebhookSignature {
    package static let secretPrefix = "whsec_"

    /// A new secret of 24 random bytes, `whsec_<base64>`.
    package static func newSecret(_ random: RandomSource) -> String {
        secretPrefix + Data(random.bytes(24)).base64EncodedString()
    }

    /// The key bytes of a `whsec_…` secret; nil when it is not one.
    package static func key(of secret: String) -> SymmetricKey? {
        guard secret.hasPrefix(secretPrefix), let bytes = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))), !bytes.isEmpty else {
            return nil
        }
        return SymmetricKey(data: bytes)
    }

    /// One `v1,<base64>` signature of `body` sent as message `id` at `timestamp` (unix seconds).
    package static func sign(secret: String, id: String, timestamp: Int64, body: String) -> String? {
        guard let key = key(of: secret) else { return nil }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).\(body)".utf8), using: key)
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The `webhook-signature` header value: one signature per secret, space-separated.
    package static func header(secrets: [String], id: String, timestamp: Int64, body: String) -> String {
        secrets.compactMap { sign(secret: $0, id: id, timestamp: timestamp, body: body) }.joined(separator: " ")
    }
}
