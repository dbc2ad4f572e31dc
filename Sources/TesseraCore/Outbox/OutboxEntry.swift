import Foundation

/// One message in the development file outbox (`<dataDir>/outbox.jsonl`, one JSON object a line):
/// what the server's file delivery writes and what `tessera outbox`, `tessera device … --otp-from-outbox`
/// and the bench load generators read.
public struct OutboxEntry: Codable, Sendable, Equatable {
    /// The outbound message's ID.
    public var id: String
    /// `email` or `sms`.
    public var channel: String
    /// The recipient: an e-mail address or an E.164 phone number.
    public var to: String
    /// The subject (empty for SMS).
    public var subject: String
    /// The text sent.
    public var body: String
    /// When it was written, ISO 8601.
    public var deliveredAt: String

    /// Creates an entry.
    public init(id: String, channel: String, to: String, subject: String, body: String, deliveredAt: String) {
        self.id = id
        self.channel = channel
        self.to = to
        self.subject = subject
        self.body = body
        self.deliveredAt = deliveredAt
    }

    /// The first six-digit code in the body, if any.
    public var code: String? {
        body.firstMatch(of: /\b(\d{6})\b/).map { String($0.1) }
    }
}
