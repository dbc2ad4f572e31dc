import TesseraCore

/// A message to deliver: an e-mail (subject + body) or an SMS (body only).
public struct OutboundMessage: Sendable, Codable, Equatable {
    public var id: String
    public var channel: OTPChannel
    public var recipient: String
    public var subject: String
    public var body: String

    package init(id: String, channel: OTPChannel, recipient: String, subject: String, body: String) {
        self.id = id
        self.channel = channel
        self.recipient = recipient
        self.subject = subject
        self.body = body
    }
}

/// Something that delivers messages of one channel: SMTP, an SMS provider over HTTP, or the
/// development file outbox. Throwing means "try again later".
public protocol MessageSender: Sendable {
    func send(_ message: OutboundMessage) async throws
}
