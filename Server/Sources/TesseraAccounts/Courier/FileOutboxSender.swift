import Foundation
import TesseraCore

/// Development delivery: appends each message as one JSON line to `<dataDir>/outbox.jsonl`,
/// readable with `tessera outbox`. Never use it in production: it writes codes to disk in clear.
/// An actor, so that concurrent sends append whole lines one after the other.
public actor FileOutboxSender: MessageSender {
    public nonisolated let path: String

    public init(path: String) { self.path = path }

    /// One line of the file outbox.
    public typealias Entry = OutboxEntry

    public func send(_ message: OutboundMessage) async throws {
        let entry = OutboxEntry(
            id: message.id, channel: message.channel.rawValue, to: message.recipient, subject: message.subject,
            body: message.body, deliveredAt: ISO8601DateFormatter().string(from: Date())
        )
        var line = try JSONEncoder().encode(entry)
        line.append(0x0A)
        if !FileManager.default.fileExists(atPath: path),
           !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        {
            throw ConfigurationError("cannot create the file outbox \(path): check that its directory exists and is writable")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
    }

    /// Reads every entry, oldest first.
    public static func read(path: String) throws -> [OutboxEntry] {
        try OutboxFile(path: path).entries()
    }
}
