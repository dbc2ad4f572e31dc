/// One CBOR data item (RFC 8949) of the kinds WebAuthn uses: integers, byte and text strings,
/// arrays, maps, and the simple values false, true and null. Floats, tags, undefined and
/// indefinite lengths are refused by ``CBORDecoder``; attestation objects, COSE keys and
/// authenticator extensions need none of them.
public indirect enum CBORValue: Sendable, Hashable {
    /// A major type 0 integer.
    case unsigned(UInt64)
    /// A major type 1 integer: the value is `-1 - n`.
    case negative(UInt64)
    /// A byte string.
    case bytes([UInt8])
    /// A UTF-8 text string.
    case text(String)
    /// An array.
    case array([CBORValue])
    /// A map, its pairs in the order they were encoded (keys are unique).
    case map([CBORPair])
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// The value as a signed integer, when it is an integer that fits.
    public var int: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// The bytes of a byte string.
    public var bytes: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    /// The text of a text string.
    public var text: String? { if case .text(let t) = self { t } else { nil } }
    /// The items of an array.
    public var array: [CBORValue]? { if case .array(let a) = self { a } else { nil } }
    /// The pairs of a map.
    public var map: [CBORPair]? { if case .map(let m) = self { m } else { nil } }

    /// The value under `key` in a map (nil when this is not a map or the key is absent).
    public subscript(key: CBORValue) -> CBORValue? {
        map?.first { $0.key == key }?.value
    }

    /// The value under the text key `key`.
    public subscript(text key: String) -> CBORValue? { self[.text(key)] }

    /// The value under the integer key `key` (COSE labels).
    public subscript(int key: Int64) -> CBORValue? {
        self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }
}

/// A key and its value in a ``CBORValue/map(_:)``.
public struct CBORPair: Sendable, Hashable {
    /// The key.
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// A pair.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
