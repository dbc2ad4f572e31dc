import Foundation
import Testing
import TesseraCore
@testable import TesseraServer

/// The outbox's sealed payload is written by hand (``JSONObjectWriter``) and read by `JSONDecoder`.
@Suite("Outbox payload")
struct OutboxPayloadTests {
    @Test("the payload's JSON is byte for byte what the shared encoder writes, and decodes to the message", arguments: [
        ("Your code", "123456"),
        ("Quotes \" and \\ back\\slash", "Line one\nLine two\r\n\ttab, a / slash"),
        ("Ünïcødé — 名前 🙂", "control \u{01}\u{1F} and \u{7F} and \u{2028}"),
        ("", ""),
    ])
    func payload(subject: String, body: String) throws {
        let message = OutboundMessage(id: "msg_1", channel: .email, recipient: "a@example.com", subject: subject, body: body)
        let written = SQLOutboxRepository.payloadJSON(message)
        #expect(written == (try SharedJSON.encoder.encode(SQLOutboxRepository.Payload(subject: subject, body: body))))
        #expect(try JSONDecoder().decode(SQLOutboxRepository.Payload.self, from: written) == .init(subject: subject, body: body))
    }
}
