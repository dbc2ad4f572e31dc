import Crypto
import Foundation

/// RFC 6238 time-based one-time passwords (HMAC-SHA-1, the algorithm authenticator apps and
/// `oathtool --totp` use by default). The device computes codes offline; the server checks them.
public struct TOTP: Sendable, Equatable {
    /// The shared secret (at least 20 bytes for Tessera's own secrets).
    public let secret: [UInt8]
    /// Digits in a code (6 by default, 8 for the RFC's test vectors).
    public let digits: Int
    /// Length of a time step in seconds.
    public let period: Int64

    /// Creates a generator.
    public init(secret: [UInt8], digits: Int = 6, period: Int64 = 30) {
        precondition((6...8).contains(digits), "TOTP codes have 6 to 8 digits")
        precondition(period > 0, "the time step must be positive")
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// Creates a generator from a base32 secret (RFC 4648, case and padding ignored).
    public init?(base32Secret: String, digits: Int = 6, period: Int64 = 30) {
        guard let bytes = Base32.decode(base32Secret), !bytes.isEmpty else { return nil }
        self.init(secret: bytes, digits: digits, period: period)
    }

    /// The time step that contains `date`.
    public func step(at date: Date) -> Int64 {
        Int64(floor(date.timeIntervalSince1970)) / period
    }

    /// The code for a time step (RFC 4226 HOTP with the step as counter).
    public func code(forStep step: Int64) -> String {
        Self.format(value(forStep: step, keyed: KeyedSHA1(key: secret)), digits: digits)
    }

    /// The codes for several time steps (a verifier's window), keying the HMAC once for all of them.
    public func codes(forSteps steps: ClosedRange<Int64>) -> [String] {
        let keyed = KeyedSHA1(key: secret)
        return steps.map { Self.format(value(forStep: $0, keyed: keyed), digits: digits) }
    }

    /// The step of `steps` whose code is `code`, the latest if several are; nil if none is or `code`
    /// is not `digits` ASCII digits. Codes are compared as numbers, with no string made per step (the
    /// verifier's hot path), from the latest step down to the first that matches: a wrong code costs
    /// every step of the window, a right one only the steps from the latest down to its own.
    public func matchingStep(_ code: String, in steps: ClosedRange<Int64>) -> Int64? {
        guard code.utf8.count == digits else { return nil }
        var given: UInt32 = 0
        for byte in code.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            given = given * 10 + UInt32(byte - UInt8(ascii: "0"))
        }
        let keyed = KeyedSHA1(key: secret)
        for step in steps.reversed() where value(forStep: step, keyed: keyed) == given {
            return step
        }
        return nil
    }

    /// RFC 4226 §5.3: dynamic truncation of the step's HMAC, modulo 10^digits.
    private func value(forStep step: Int64, keyed: KeyedSHA1) -> UInt32 {
        let mac = keyed.mac(counter: UInt64(bitPattern: step))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        return binary % modulus
    }

    private static func format(_ value: UInt32, digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The code at `date`.
    public func code(at date: Date = Date()) -> String { code(forStep: step(at: date)) }

    /// The `otpauth://totp/…` URI authenticator apps read from a QR code.
    public func provisioningURI(issuer: String, account: String) -> String {
        var components = URLComponents()
        components.scheme = "otpauth"
        components.host = "totp"
        components.path = "/" + issuer + ":" + account
        components.queryItems = [
            URLQueryItem(name: "secret", value: Base32.encode(secret)), URLQueryItem(name: "issuer", value: issuer),
            URLQueryItem(name: "algorithm", value: "SHA1"), URLQueryItem(name: "digits", value: String(digits)),
            URLQueryItem(name: "period", value: String(period)),
        ]
        return components.string ?? ""
    }
}

/// HMAC-SHA-1 (RFC 2104) of 8-byte counters, keyed once: the inner and outer SHA-1 states with the
/// padded key absorbed, each code continuing copies of them. Built on `Insecure.SHA1`'s buffer-pointer
/// interface because `HMAC`'s generic `DataProtocol` interface is not specialized across modules: its
/// per-call generic dispatch cost several times the hashing itself (about 4 % of a server's TOTP
/// verification). Tests hold it equal to `HMAC<Insecure.SHA1>` and to the RFC 4226 and 6238 vectors.
struct KeyedSHA1 {
    private var inner = Insecure.SHA1()
    private var outer = Insecure.SHA1()

    init(key: [UInt8]) {
        var block = [UInt8](repeating: 0, count: 64)
        if key.count > 64 {
            Array(Insecure.SHA1.hash(data: key)).withUnsafeBufferPointer { digest in
                for index in digest.indices { block[index] = digest[index] }
            }
        } else {
            for index in key.indices { block[index] = key[index] }
        }
        var pad = block.map { $0 ^ 0x36 }
        pad.withUnsafeBytes { inner.update(bufferPointer: $0) }
        pad = block.map { $0 ^ 0x5C }
        pad.withUnsafeBytes { outer.update(bufferPointer: $0) }
    }

    /// The 20-byte MAC of `counter`, big-endian.
    func mac(counter: UInt64) -> [UInt8] {
        var message = counter.bigEndian
        var inner = self.inner
        withUnsafeBytes(of: &message) { inner.update(bufferPointer: $0) }
        var outer = self.outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize().withUnsafeBytes { Array($0) }
    }
}

/// RFC 4648 base32 (the alphabet TOTP secrets are exchanged in).
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes bytes without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base32, ignoring case, spaces and padding; nil for any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") && character != UInt8(ascii: " ") {
            guard let index = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(index)
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return output
    }
}
