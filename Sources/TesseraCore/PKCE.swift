import Crypto
import Foundation

/// What an OAuth 2.0 client makes for the authorization-code flow: a PKCE verifier and its S256
/// challenge (RFC 7636 §4.1–4.2), and random `state` / `nonce` values.
public enum PKCE {
    /// A random base64url string (no padding) of `byteCount` random bytes; 32 bytes give a 43-character verifier.
    public static func randomToken(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return MessageSignature.base64URL(Data((0..<byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    /// The S256 challenge of `verifier`: base64url(SHA-256(ASCII(verifier))).
    public static func challenge(of verifier: String) -> String {
        MessageSignature.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// `application/x-www-form-urlencoded` of one name or value (unreserved characters kept, the rest percent-encoded).
    public static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
