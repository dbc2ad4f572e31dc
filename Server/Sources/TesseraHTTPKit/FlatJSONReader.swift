import Foundation

/// Reads the commonest request body there is, a flat JSON object of plain strings such as
/// `{"userKey":"u1","code":"123456"}`, without `JSONDecoder` (about 3 % of a TOTP verification's CPU).
///
/// It accepts only what it can read exactly as `JSONDecoder` does: an object whose members are
/// strings of printable ASCII without escapes, each name once, JSON whitespace around the tokens.
/// For any other document it answers nil and the caller decodes with `JSONDecoder` as before, so
/// every error (not JSON, a wrong type, a missing member, U+0000) is still that decoder's. A test
/// holds the two equal over generated documents.
public enum FlatJSONReader {
    /// The members of `data`, or nil when it is not such an object.
    public static func strings(_ data: Data) -> [String: String]? {
        data.withUnsafeBytes { raw in
            var reader = Cursor(bytes: raw.bindMemory(to: UInt8.self))
            return reader.object()
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func object() -> [String: String]? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [String: String] = [:]
            skipSpace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    skipSpace()
                    guard let name = string() else { return nil }
                    skipSpace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipSpace()
                    guard let value = string(), members.updateValue(value, forKey: name) == nil else { return nil }
                    skipSpace()
                    if take(UInt8(ascii: ",")) { continue }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipSpace()
            return index == bytes.count ? members : nil
        }

        /// A string of printable ASCII without escapes; nil for anything else.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
    }
}

/// A request type that can be made from a flat object of strings (``FlatJSONReader``); when it
/// cannot (nil), its body is decoded by `JSONDecoder`.
public protocol FlatJSONDecodable: Decodable {
    /// The value these members give, or nil to leave the document to `JSONDecoder` (a member
    /// missing, or one that is not meant to be a string).
    init?(flatStrings: [String: String])
}
