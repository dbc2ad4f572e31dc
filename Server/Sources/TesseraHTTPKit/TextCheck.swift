import Foundation
import Hummingbird
import HummingbirdCore

/// Refuses text that holds U+0000 before it reaches storage. PostgreSQL cannot keep that character
/// in `TEXT` (SQLSTATE 22021) while SQLite can, so without this check the same bad input is a 500 on
/// one engine and a 4xx on the other. Every JSON body, form body and query parameter passes here and
/// a NUL answers 400 with code 1005 (field-invalid) naming the member. HTTP/1 header values and raw
/// paths cannot carry NUL (the parser refuses it), and path parameters are not percent-decoded.
public enum TextCheck {
    /// Refuses `value` if it holds U+0000, naming `field`. Inlinable, so that each caller's string
    /// type is searched directly (unspecialized, the byte-by-byte walk through protocol witnesses was
    /// a tenth of an introspection's CPU).
    @inlinable
    public static func check(_ value: some StringProtocol, field: String) throws {
        let found = value.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? value.utf8.contains(0)
        if found { throw refusal(field) }
    }

    /// Refuses the first query parameter whose decoded value holds U+0000.
    public static func checkQuery(_ uri: URI) throws {
        for (name, value) in uri.queryParameters { try check(value, field: String(name)) }
    }

    /// Refuses the first string (member name or value) of a JSON document that holds U+0000. The
    /// document is only walked when its bytes contain the escape `\u0000` (the only way JSON spells
    /// the character), so ordinary bodies cost one scan.
    public static func checkJSON(_ data: Data) throws {
        guard mayHoldNULEscape(data),
              let value = try? JSONDecoder().decode(JSONText.self, from: data),
              let path = value.pathOfNUL([])
        else { return }
        throw refusal(path.isEmpty ? "body" : path.joined(separator: "."))
    }

    /// Whether `data` holds the bytes `\u0000`: a scan for backslashes (Foundation's `Data.range(of:)`
    /// was 1.5 % of a TOTP verification's CPU).
    static func mayHoldNULEscape(_ data: Data) -> Bool {
        let pattern: [UInt8] = Array(#"\u0000"#.utf8)
        return data.withUnsafeBytes { bytes in
            var index = 0
            let last = bytes.count - pattern.count
            while index <= last {
                if bytes[index] == pattern[0] {
                    var offset = 1
                    while offset < pattern.count && bytes[index + offset] == pattern[offset] { offset += 1 }
                    if offset == pattern.count { return true }
                }
                index += 1
            }
            return false
        }
    }

    @usableFromInline
    static func refusal(_ field: String) -> AppError {
        AppError.invalidField(field, "\(field) must not contain the character U+0000")
    }
}

/// The strings of a JSON document, with where they are.
private indirect enum JSONText: Decodable {
    case string(String)
    case array([JSONText])
    case object([(name: String, value: JSONText)])
    case other

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Name.self) {
            self = .object(try object.allKeys.map { ($0.stringValue, try object.decode(JSONText.self, forKey: $0)) })
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONText] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONText.self)) }
            self = .array(elements)
        } else if let string = try? decoder.singleValueContainer().decode(String.self) {
            self = .string(string)
        } else {
            self = .other
        }
    }

    /// The path (member names and array indexes) of the first string holding U+0000.
    func pathOfNUL(_ prefix: [String]) -> [String]? {
        switch self {
        case .string(let text):
            return text.utf8.contains(0) ? prefix : nil
        case .array(let elements):
            return elements.enumerated().lazy.compactMap { $1.pathOfNUL(prefix + [String($0)]) }.first
        case .object(let members):
            for member in members {
                if member.name.utf8.contains(0) {
                    return prefix + [member.name.replacingOccurrences(of: "\u{0}", with: "\\u0000")]
                }
                if let path = member.value.pathOfNUL(prefix + [member.name]) { return path }
            }
            return nil
        case .other:
            return nil
        }
    }
}
