/// Encodes ``CBORValue``s in the form ``CBORDecoder`` accepts: every integer and length in its shortest form
/// (RFC 8949 §4.2.1), map pairs in the order given, definite lengths only. For objects Tessera rewrites (an App Attest
/// attestation without its receipt), not for anything signed over its bytes.
public enum CBOREncoder {
    /// The bytes of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): head(0, n, &out)
        case .negative(let n): head(1, n, &out)
        case .bytes(let bytes):
            head(2, UInt64(bytes.count), &out)
            out += bytes
        case .text(let text):
            head(3, UInt64(text.utf8.count), &out)
            out += text.utf8
        case .array(let items):
            head(4, UInt64(items.count), &out)
            for item in items { append(item, to: &out) }
        case .map(let pairs):
            head(5, UInt64(pairs.count), &out)
            for pair in pairs {
                append(pair.key, to: &out)
                append(pair.value, to: &out)
            }
        case .bool(let flag): out.append(flag ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }

    /// A major type's initial byte and its argument in the fewest bytes.
    private static func head(_ major: UInt8, _ argument: UInt64, _ out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xFF: out += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: out += [type | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF: out += [type | 26] + (0..<4).reversed().map { UInt8((argument >> ($0 * 8)) & 0xFF) }
        default: out += [type | 27] + (0..<8).reversed().map { UInt8((argument >> ($0 * 8)) & 0xFF) }
        }
    }
}
