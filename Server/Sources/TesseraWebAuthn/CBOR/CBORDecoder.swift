/// A strict decoder of the CBOR (RFC 8949) WebAuthn needs, for bytes that come from outside.
///
/// - Only definite lengths; no floats, no tags, no `undefined`, no reserved additional info.
/// - Integers and lengths in their shortest form (RFC 8949 §4.2.1, the CTAP2 canonical form),
///   so one value has one encoding.
/// - Map keys unique; text strings valid UTF-8.
/// - Nesting at most ``maximumDepth`` deep; a length larger than the bytes left fails before
///   anything is allocated, so hostile input costs at most its own size.
public struct CBORDecoder: Sendable {
    /// How deep arrays and maps may nest.
    public var maximumDepth: Int

    /// A decoder; `maximumDepth` bounds nesting (WebAuthn's deepest item, an attestation object's
    /// `x5c` array inside `attStmt` inside the object, is 3 deep).
    public init(maximumDepth: Int = 16) {
        self.maximumDepth = maximumDepth
    }

    /// Decodes exactly one item that fills all of `bytes`.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        var reader = Reader(bytes: bytes[...])
        let value = try item(&reader, depth: 0)
        guard reader.remaining == 0 else { throw .trailingBytes(reader.remaining) }
        return value
    }

    /// Decodes the first item of `bytes`; returns it and the number of bytes it took (for an item
    /// followed by others, as a COSE key inside authenticator data is).
    public func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (value: CBORValue, length: Int) {
        var reader = Reader(bytes: bytes)
        let value = try item(&reader, depth: 0)
        return (value, bytes.count - reader.remaining)
    }

    private struct Reader {
        var bytes: ArraySlice<UInt8>
        var remaining: Int { bytes.count }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard let first = bytes.first else { throw .truncated }
            bytes = bytes.dropFirst()
            return first
        }

        mutating func take(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= bytes.count else { throw .truncated }
            let taken = bytes.prefix(count)
            bytes = bytes.dropFirst(count)
            return taken
        }
    }

    /// The argument of an item head: the additional information's value, shortest form enforced.
    private func argument(_ info: UInt8, _ reader: inout Reader) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24:
            return UInt64(info)
        case 24, 25, 26, 27:
            let width = 1 << Int(info - 24)
            var value: UInt64 = 0
            for byte in try reader.take(width) { value = value << 8 | UInt64(byte) }
            let shortest: UInt64 = switch width {
            case 1: 24
            case 2: 0x100
            case 4: 0x1_0000
            default: 0x1_0000_0000
            }
            guard value >= shortest else { throw .notShortestForm }
            return value
        case 31:
            throw .indefiniteLength
        default:
            throw .reservedAdditionalInformation(info)
        }
    }

    /// A length that must fit in the bytes left (each element of an array or map takes at least one byte).
    private func length(_ info: UInt8, _ reader: inout Reader, perItem: Int) throws(CBORError) -> Int {
        let value = try argument(info, &reader)
        guard value <= UInt64(reader.remaining / perItem) else { throw .truncated }
        return Int(value)
    }

    private func item(_ reader: inout Reader, depth: Int) throws(CBORError) -> CBORValue {
        guard depth <= maximumDepth else { throw .tooDeep }
        let head = try reader.byte()
        let major = head >> 5, info = head & 0x1f
        switch major {
        case 0:
            return .unsigned(try argument(info, &reader))
        case 1:
            return .negative(try argument(info, &reader))
        case 2:
            return .bytes(Array(try reader.take(try length(info, &reader, perItem: 1))))
        case 3:
            let raw = try reader.take(try length(info, &reader, perItem: 1))
            guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8 }
            return .text(text)
        case 4:
            let count = try length(info, &reader, perItem: 1)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try item(&reader, depth: depth + 1)) }
            return .array(items)
        case 5:
            let count = try length(info, &reader, perItem: 2)
            var pairs: [CBORPair] = []
            pairs.reserveCapacity(count)
            var keys = Set<CBORValue>()
            for _ in 0..<count {
                let key = try item(&reader, depth: depth + 1)
                guard keys.insert(key).inserted else { throw .duplicateKey }
                pairs.append(CBORPair(key, try item(&reader, depth: depth + 1)))
            }
            return .map(pairs)
        case 6:
            throw .unsupported("tag")
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: throw .unsupported("undefined")
            case 25, 26, 27: throw .unsupported("float")
            case 31: throw .indefiniteLength
            default: throw .unsupported("simple value")
            }
        }
    }
}

/// Why bytes are not CBOR this decoder takes.
public enum CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes end inside an item, or a length exceeds the bytes left.
    case truncated
    /// Bytes follow the item.
    case trailingBytes(Int)
    /// An indefinite-length item.
    case indefiniteLength
    /// Additional information 28–30.
    case reservedAdditionalInformation(UInt8)
    /// An integer or length not in its shortest form.
    case notShortestForm
    /// A text string that is not UTF-8.
    case invalidUTF8
    /// A map with a key twice.
    case duplicateKey
    /// Nesting deeper than allowed.
    case tooDeep
    /// A kind of item WebAuthn does not use (tag, float, undefined, other simple values).
    case unsupported(String)

    public var description: String {
        switch self {
        case .truncated: "CBOR: the bytes end inside an item"
        case .trailingBytes(let n): "CBOR: \(n) bytes after the item"
        case .indefiniteLength: "CBOR: indefinite lengths are not accepted"
        case .reservedAdditionalInformation(let info): "CBOR: reserved additional information \(info)"
        case .notShortestForm: "CBOR: an integer or length not in its shortest form"
        case .invalidUTF8: "CBOR: a text string that is not UTF-8"
        case .duplicateKey: "CBOR: a map key appears twice"
        case .tooDeep: "CBOR: nested too deep"
        case .unsupported(let kind): "CBOR: \(kind) is not accepted"
        }
    }
}
