/// E-mail delivery over SMTP with ``SMTPClient``.
package struct SMTPSender: MessageSender {
    package let client: SMTPClient

    package init(client: SMTPClient) {
        self.client = client
    }

    package func send(_ message: OutboundMessage) async throws {
        try await client.send(SMTPMessage(to: message.recipient, subject: message.subject, body: message.body))
    }
}
