/// E-mail delivery over SMTP with ``SMTPClient``.
struct SMTPSender: MessageSender {
    let client: SMTPClient

    func send(_ message: OutboundMessage) async throws {
        try await client.send(SMTPMessage(to: message.recipient, subject: message.subject, body: message.body))
    }
}
