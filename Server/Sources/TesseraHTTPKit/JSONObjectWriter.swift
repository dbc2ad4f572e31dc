import Hummingbird

/// A flat JSON object written straight into bytes, byte for byte what ``SharedJSON/encoder`` writes
/// for the same members: members in the order given (the writer of a type gives them sorted, as the
/// encoder sorts them), absent optionals left out, strings escaped as the encoder escapes them
/// (`\"`, `\\`, `\b \t \n \f \r`, other controls as `\u00xx`; `/` and everything else as it is).
///
/// For the hottest answers only: `JSONEncoder`'s generic containers were 14 % of a result-token
/// introspection's CPU. A type that uses it conforms to ``JSONObjectWritable`` and keeps its
/// `Encodable` conformance, and a test holds the two outputs equal.
public struct JSONObjectWriter: ~Copyable {
    private var bytes: [UInt8]
    private var empty = true
    /// Lower-case hex digits for `\u00xx` escapes, made once rather than per string.
    private static let hex = Array("0123456789abcdef".utf8)

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    public mutating func add(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    public mutating func add(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func add(_ name: StaticString, _ value: Int?) {
        add(name, value.map(Int64.init))
    }

    public mutating func add(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    public mutating func add(_ name: StaticString, _ value: [String]?) {
        guard let value else { return }
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in value.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The object's bytes, closed.
    public consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private mutating func key(_ name: StaticString) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings (identifiers, keys, URLs) need no escape: they are copied whole.
        var value = value
        let plain = value.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !plain { escaped(value) }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escaped(_ value: String) {
        let hex = Self.hex
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0..<0x20: bytes.append(contentsOf: "\\u00".utf8 + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
    }
}

/// A type whose JSON answer is written by ``JSONObjectWriter`` (a flat object); its `Encodable`
/// conformance gives the same bytes, which a test checks.
public protocol JSONObjectWritable: Encodable {
    /// Adds the members, sorted by name as ``SharedJSON/encoder`` sorts them.
    func write(to writer: inout JSONObjectWriter)
}

extension JSONObjectWritable {
    /// The JSON object's bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONObjectWriter()
        write(to: &writer)
        return writer.finish()
    }
}

extension Response {
    /// A JSON answer written by ``JSONObjectWriter`` (the same bytes as `json(_:status:)` with the encoder).
    public static func json(_ value: some JSONObjectWritable, status: HTTPResponse.Status = .ok) -> Response {
        json(bytes: value.jsonBytes, status: status)
    }
}
