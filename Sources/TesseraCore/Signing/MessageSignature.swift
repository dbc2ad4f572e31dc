import Crypto
import Foundation

/// RFC 9421 HTTP Message Signatures as Tessera devices use them: `ecdsa-p256-sha256` over
/// `@method`, `@path` and `content-digest` (RFC 9530, SHA-256), with `created`, `nonce` and `keyid`
/// parameters, under the signature label `tessera`.
///
/// The SDK signs with ``sign(method:path:body:keyId:privateKey:nonce:created:)``; the server parses
/// with ``parse(signatureInput:signature:)`` and rebuilds the base with ``signatureBase(method:path:contentDigest:signatureParams:)``.
public enum MessageSignature {
    /// The signature label (the dictionary key in `Signature-Input` and `Signature`).
    public static let label = "tessera"
    /// The only algorithm Tessera accepts.
    public static let algorithm = "ecdsa-p256-sha256"
    /// The components every device request signature must cover.
    public static let requiredComponents = ["@method", "@path", "content-digest"]

    /// The headers that carry a signed request.
    public struct Headers: Sendable, Equatable {
        /// `Content-Digest: sha-256=:…:`
        public var contentDigest: String
        /// `Signature-Input: tessera=(…);created=…;nonce="…";keyid="…";alg="ecdsa-p256-sha256"`
        public var signatureInput: String
        /// `Signature: tessera=:…:`
        public var signature: String
    }

    /// What a received `Signature-Input` / `Signature` pair says.
    public struct Parsed: Sendable, Equatable {
        /// Covered components, in order.
        public var components: [String]
        /// The `created` parameter (seconds since 1970).
        public var created: Int64
        /// The `nonce` parameter.
        public var nonce: String
        /// The `keyid` parameter (the device ID).
        public var keyId: String
        /// The `alg` parameter.
        public var algorithm: String
        /// The serialized signature parameters exactly as received (the `@signature-params` value).
        public var signatureParams: String
        /// The raw signature bytes (r ‖ s for ECDSA P-256).
        public var signature: Data
    }

    /// Why a signature could not be parsed.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// The key id a device uses before it has a device ID (sign-up): base64url (no padding) of the
    /// SHA-256 of its public key's X9.63 bytes.
    public static func thumbprint(ofX963 publicKey: some DataProtocol) -> String {
        base64URL(Data(SHA256.hash(data: Data(publicKey))))
    }

    /// RFC 4648 base64url without padding, in one pass over the base64 text.
    public static func base64URL(_ data: Data) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity((data.count + 2) / 3 * 4)
        for byte in data.base64EncodedString().utf8 {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A fresh nonce for ``sign(method:path:body:keyId:privateKey:nonce:created:)``: 128 bits from the
    /// system's CSPRNG (`SystemRandomNumberGenerator`), base64url without padding. On Linux,
    /// Foundation's `UUID()` opens, reads and closes `/dev/urandom` for each one; this is two
    /// `getrandom` calls.
    public static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        let words = (generator.next(), generator.next())
        return base64URL(withUnsafeBytes(of: words) { Data($0) })
    }

    /// The RFC 9530 `Content-Digest` value of a body (`sha-256=:base64:`).
    public static func contentDigest(of body: some DataProtocol) -> String {
        "sha-256=:" + Data(SHA256.hash(data: Data(body))).base64EncodedString() + ":"
    }

    /// Serializes the signature parameters (RFC 9421 §2.3) for the required components.
    public static func signatureParams(created: Int64, nonce: String, keyId: String) -> String {
        "(" + requiredComponents.map { "\"\($0)\"" }.joined(separator: " ") + ")"
            + ";created=\(created);nonce=\"\(nonce)\";keyid=\"\(keyId)\";alg=\"\(algorithm)\""
    }

    /// The signature base (RFC 9421 §2.5) for the required components.
    public static func signatureBase(method: String, path: String, contentDigest: String, signatureParams: String) -> String {
        "\"@method\": \(method.uppercased())\n\"@path\": \(path)\n\"content-digest\": \(contentDigest)\n\"@signature-params\": \(signatureParams)"
    }

    /// Signs a request: returns the three headers to send.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The request path without query (the `@path` component).
    ///   - body: The exact body bytes that will be sent (empty for none).
    ///   - keyId: The device ID the server knows the public key by.
    ///   - privateKey: The device key.
    ///   - nonce: A fresh random nonce (never reused).
    ///   - created: Seconds since 1970.
    public static func sign(
        method: String, path: String, body: some DataProtocol, keyId: String, privateKey: P256.Signing.PrivateKey,
        nonce: String, created: Int64
    ) throws -> Headers {
        try sign(method: method, path: path, body: body, keyId: keyId, nonce: nonce, created: created) {
            try privateKey.signature(for: $0)
        }
    }

    /// Signs a request with a key that never leaves its store: `signer` receives the signature base.
    public static func sign(
        method: String, path: String, body: some DataProtocol, keyId: String, nonce: String, created: Int64,
        signer: (Data) throws -> P256.Signing.ECDSASignature
    ) throws -> Headers {
        try validateToken(nonce, name: "nonce")
        try validateToken(keyId, name: "keyid")
        let digest = contentDigest(of: body)
        let params = signatureParams(created: created, nonce: nonce, keyId: keyId)
        let base = signatureBase(method: method, path: path, contentDigest: digest, signatureParams: params)
        let signature = try signer(Data(base.utf8)).rawRepresentation
        return Headers(
            contentDigest: digest, signatureInput: "\(label)=\(params)",
            signature: "\(label)=:\(signature.base64EncodedString()):"
        )
    }

    /// Parses the `tessera` member of `Signature-Input` and `Signature` (RFC 8941 subset: an inner
    /// list of strings with integer and string parameters; a byte sequence).
    public static func parse(signatureInput: String, signature: String) throws -> Parsed {
        guard let params = member(label, in: signatureInput) else {
            throw ParseError(description: "Signature-Input has no '\(label)' member")
        }
        guard let rawSignature = member(label, in: signature), rawSignature.hasPrefix(":"), rawSignature.hasSuffix(":"),
              rawSignature.count >= 2, let signatureBytes = Data(base64Encoded: String(rawSignature.dropFirst().dropLast()))
        else {
            throw ParseError(description: "Signature has no '\(label)' byte sequence")
        }
        guard params.hasPrefix("("), let close = params.firstIndex(of: ")") else {
            throw ParseError(description: "Signature-Input must start with an inner list")
        }
        let inner = params[params.index(after: params.startIndex)..<close]
        var components: [String] = []
        for item in inner.split(separator: " ", omittingEmptySubsequences: true) {
            guard item.count >= 2, item.hasPrefix("\""), item.hasSuffix("\"") else {
                throw ParseError(description: "covered components must be strings")
            }
            components.append(String(item.dropFirst().dropLast()))
        }
        var values: [String: String] = [:]
        for parameter in params[params.index(after: close)...].split(separator: ";", omittingEmptySubsequences: true) {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { throw ParseError(description: "malformed parameter '\(parameter)'") }
            var value = String(pair[1])
            if value.hasPrefix("\"") {
                guard value.count >= 2, value.hasSuffix("\"") else { throw ParseError(description: "unterminated string") }
                value = String(value.dropFirst().dropLast())
            }
            values[String(decoding: pair[0].utf8.trimmingOptionalWhitespace(), as: UTF8.self)] = value
        }
        guard let createdText = values["created"], let created = Int64(createdText) else {
            throw ParseError(description: "created is required")
        }
        guard let nonce = values["nonce"], !nonce.isEmpty else { throw ParseError(description: "nonce is required") }
        guard let keyId = values["keyid"], !keyId.isEmpty else { throw ParseError(description: "keyid is required") }
        return Parsed(
            components: components, created: created, nonce: nonce, keyId: keyId, algorithm: values["alg"] ?? "",
            signatureParams: params, signature: signatureBytes
        )
    }

    /// The value of `name` in a structured-field dictionary (top-level commas only).
    static func member(_ name: String, in header: String) -> String? {
        // Byte by byte (RFC 8941 structured fields are ASCII): walking Characters and trimming with
        // Foundation made parsing the two headers a twentieth of a signed call's server CPU.
        let bytes = Array(header.utf8)
        var depth = 0
        var inString = false
        var start = 0
        var members: [Range<Int>] = []
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "\"") { inString.toggle() }
            if inString { continue }
            if byte == UInt8(ascii: "(") { depth += 1 }
            if byte == UInt8(ascii: ")") { depth -= 1 }
            if byte == UInt8(ascii: ","), depth == 0 {
                members.append(start..<index)
                start = index + 1
            }
        }
        members.append(start..<bytes.count)
        let prefix = Array((name + "=").utf8)
        for member in members {
            let trimmed = bytes[member].trimmingOptionalWhitespace()
            if trimmed.starts(with: prefix) { return String(decoding: trimmed.dropFirst(prefix.count), as: UTF8.self) }
        }
        return nil
    }

    static func validateToken(_ value: String, name: String) throws {
        guard !value.isEmpty, value.count <= 200,
              value.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0 != "\"" && $0 != "\\" })
        else { throw ParseError(description: "\(name) must be 1–200 printable ASCII characters without quotes") }
    }
}
