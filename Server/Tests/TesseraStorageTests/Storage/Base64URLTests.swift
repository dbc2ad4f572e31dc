import Foundation
import Testing
@testable import TesseraServer

/// `Data(base64URLEncoded:)` (RFC 4648 §5, with or without padding), the decoder of challenges, key IDs and nonces.
@Suite("Storage: base64url decoding")
struct Base64URLTests {
    @Test("every length 0…40 round-trips through base64URLEncodedString, with and without padding")
    func roundTrip() {
        for length in 0...40 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255) })
            let text = bytes.base64URLEncodedString()
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Data(base64URLEncoded: text) == bytes, "\(length)")
            #expect(Data(base64URLEncoded: bytes.base64EncodedString()) == bytes, "padded standard base64, \(length)")
        }
        #expect(Data(base64URLEncoded: "-_-_") == Data([0xFB, 0xFF, 0xBF]))
    }

    @Test("what is not base64url is refused: other characters, an impossible length, non-ASCII")
    func refused() {
        for text in ["a*bc", "abcde", "ab cd", "äbcd", "ab\u{0}d", "abc=d"] {
            #expect(Data(base64URLEncoded: text) == nil, "\(text)")
        }
    }
}
