import Testing
@testable import TesseraWebAuthn

/// ``CBOREncoder``: shortest forms (RFC 8949 §4.2.1), read back by ``CBORDecoder`` to the same value.
struct CBOREncoderTests {
    @Test("RFC 8949 Appendix A's examples of the kinds WebAuthn uses encode to the RFC's bytes")
    func appendixA() {
        let cases: [(CBORValue, [UInt8])] = [
            (.unsigned(0), [0x00]), (.unsigned(23), [0x17]), (.unsigned(24), [0x18, 0x18]), (.unsigned(100), [0x18, 0x64]),
            (.unsigned(1000), [0x19, 0x03, 0xE8]), (.unsigned(1_000_000), [0x1A, 0x00, 0x0F, 0x42, 0x40]),
            (.unsigned(1_000_000_000_000), [0x1B, 0x00, 0x00, 0x00, 0xE8, 0xD4, 0xA5, 0x10, 0x00]),
            (.negative(0), [0x20]), (.negative(99), [0x38, 0x63]), (.negative(999), [0x39, 0x03, 0xE7]),
            (.bool(false), [0xF4]), (.bool(true), [0xF5]), (.null, [0xF6]),
            (.bytes([]), [0x40]), (.bytes([1, 2, 3, 4]), [0x44, 0x01, 0x02, 0x03, 0x04]),
            (.text(""), [0x60]), (.text("a"), [0x61, 0x61]), (.text("IETF"), [0x64, 0x49, 0x45, 0x54, 0x46]),
            (.text("ü"), [0x62, 0xC3, 0xBC]),
            (.array([]), [0x80]), (.array([.unsigned(1), .unsigned(2), .unsigned(3)]), [0x83, 0x01, 0x02, 0x03]),
            (.map([]), [0xA0]),
            (.map([CBORPair(.unsigned(1), .unsigned(2)), CBORPair(.unsigned(3), .unsigned(4))]), [0xA2, 0x01, 0x02, 0x03, 0x04]),
            (.map([CBORPair(.text("a"), .unsigned(1)), CBORPair(.text("b"), .array([.unsigned(2), .unsigned(3)]))]),
             [0xA2, 0x61, 0x61, 0x01, 0x61, 0x62, 0x82, 0x02, 0x03]),
        ]
        for (value, bytes) in cases {
            #expect(CBOREncoder.encode(value) == bytes, "\(value)")
            #expect((try? CBORDecoder().decode(bytes)) == value, "\(value)")
        }
    }

    @Test("lengths at each form's boundary read back the same (23/24, 255/256, 65535/65536 bytes)")
    func lengthBoundaries() throws {
        for count in [23, 24, 255, 256, 65_535, 65_536] {
            let value = CBORValue.bytes([UInt8](repeating: 7, count: count))
            let encoded = CBOREncoder.encode(value)
            #expect(try CBORDecoder().decode(encoded) == value, "\(count) bytes")
            #expect(encoded.count == count + (count < 24 ? 1 : count < 256 ? 2 : count < 65_536 ? 3 : 5))
        }
    }
}
