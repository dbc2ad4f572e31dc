import Testing
@testable import TesseraWebAuthn

/// The strict CBOR decoder (RFC 8949) on RFC 8949 Appendix A examples, on what it must refuse, and
/// under a mutation fuzzer: no crash, no hang, every input answered with a value or a `CBORError`.
struct CBORDecoderTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    @Test("RFC 8949 Appendix A: integers, strings, arrays and maps decode to their values", arguments: [
        ("00", CBORValue.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)), ("20", .negative(0)), ("3863", .negative(99)),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6449455446", .text("IETF")),
        ("62c3bc", .text("\u{fc}")), ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("a201020304", .map([CBORPair(.unsigned(1), .unsigned(2)), CBORPair(.unsigned(3), .unsigned(4))])),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
    ])
    func appendixA(_ input: String, _ expected: CBORValue) throws {
        #expect(try CBORDecoder().decode(Self.hex(input)) == expected)
    }

    @Test("refused: floats, tags, undefined, indefinite lengths, non-shortest forms, duplicate keys, bad UTF-8, truncation, trailing bytes, depth", arguments: [
        ("f93c00", CBORError.unsupported("float")), ("fb3ff199999999999a", .unsupported("float")), ("c11a514b67b0", .unsupported("tag")),
        ("f7", .unsupported("undefined")), ("5f42010243030405ff", .indefiniteLength), ("9fff", .indefiniteLength),
        ("1817", .notShortestForm), ("190017", .notShortestForm), ("a2010201ff", .duplicateKey), ("a201020103", .duplicateKey),
        ("62c328", .invalidUTF8), ("44010203", .truncated), ("1b0000", .truncated), ("0000", .trailingBytes(1)),
        ("1c", .reservedAdditionalInformation(28)), ("9affffffff", .truncated), ("baffffffff", .truncated), ("9b00000000ffffffff", .notShortestForm),
    ])
    func refusals(_ input: String, _ expected: CBORError) {
        #expect(throws: expected) { try CBORDecoder().decode(Self.hex(input)) }
    }

    @Test("nesting deeper than the limit is refused before the stack is used up")
    func depth() {
        let deep = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder().decode(deep) }
        let fine = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect((try? CBORDecoder().decode(fine)) != nil)
    }

    @Test("a prefix decode says how many bytes the item took (a COSE key inside authenticator data)")
    func prefix() throws {
        let bytes = Self.hex("a2010203f5") + [0xaa, 0xbb]
        let (value, length) = try CBORDecoder().decodePrefix(bytes[...])
        #expect(length == 5)
        #expect(value[int: 1] == .unsigned(2))
        #expect(value[int: 3] == .bool(true))
    }

    @Test("fuzz: 200 000 mutations of real attestation objects and random bytes end in a value or a CBORError")
    func fuzz() throws {
        let seeds: [[UInt8]] = try WebAuthnFixtures.vectors().map { $0.attestationObject } + [Self.hex("a201020304"), Self.hex("83010203")]
        var random = ByteMutations.SplitMix(state: 0x7E55_E7A0)
        var decoded = 0, refused = 0
        for round in 0..<200_000 {
            let input = round % 10 == 0
                ? (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                : ByteMutations.mutate(seeds[round % seeds.count], using: &random)
            do {
                _ = try CBORDecoder().decode(input)
                decoded += 1
            } catch {
                refused += 1
            }
        }
        #expect(decoded + refused == 200_000)
        #expect(refused > 100_000, "mutations should mostly break the encoding")
        #expect(decoded > 0, "some mutations (a changed byte inside a byte string) still decode")
    }
}
