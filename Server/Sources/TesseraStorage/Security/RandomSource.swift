import Crypto
import Foundation
import TesseraCore

/// Randomness, injected so tests can fix it. `.system` uses the operating system's CSPRNG.
public struct RandomSource: Sendable {
    /// Returns `count` random bytes.
    public var bytes: @Sendable (Int) -> [UInt8]

    public init(bytes: @escaping @Sendable (Int) -> [UInt8]) { self.bytes = bytes }

    /// The system CSPRNG (`SystemRandomNumberGenerator`: getrandom(2) on Linux), drawn eight bytes
    /// per call: drawing a byte at a time made a system call per byte, 16 for an identifier.
    public static let system = RandomSource { count in
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// A token of `byteCount` random bytes, base64url without padding, with an optional prefix.
    package func token(byteCount: Int = 32, prefix: String = "") -> String {
        prefix + Data(bytes(byteCount)).base64URLEncodedString()
    }

    /// A decimal code of `digits` digits, uniformly distributed (rejection sampling, no modulo bias).
    package func numericCode(digits: Int) -> String {
        var limit: UInt32 = 1
        for _ in 0..<digits { limit *= 10 }
        let value = String(uniform(below: limit))
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// A number in `0..<bound`, uniformly distributed (rejection sampling, no modulo bias); 0 when `bound` is at most 1.
    package func uniform(below bound: UInt32) -> UInt32 {
        guard bound > 1 else { return 0 }
        let ceiling = UInt32.max - (UInt32.max % bound)
        while true {
            let raw = bytes(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            if raw < ceiling { return raw % bound }
        }
    }

    /// A random identifier (128 bits, base64url).
    package func identifier(prefix: String = "") -> String { token(byteCount: 16, prefix: prefix) }
}

extension Data {
    /// RFC 4648 base64url without padding.
    package func base64URLEncodedString() -> String { MessageSignature.base64URL(self) }

    /// Decodes base64url with or without padding (one pass over the UTF-8 bytes: Foundation's string replacing was a
    /// noticeable share of a sign-in's App Attest check).
    package init?(base64URLEncoded string: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 3)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            default: bytes.append(byte)
            }
        }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        self.init(base64Encoded: Data(bytes))
    }
}
