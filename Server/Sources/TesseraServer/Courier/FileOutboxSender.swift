import Foundation

/// Development delivery: appends each message as one JSON line to `<dataDir>/outbox.jsonl`,
/// readable with `tessera outbox`. Never use it in production: it writes codes to disk in clear.
public struct FileOutboxSender: MessageSender {
    public let path: String
    private let lock = NSLock()

    public init(path: String) { self.path = path }

    /// One line of the file outbox.
    public struct Entry: Codable, Sendable {
        public var id: String
        public var channel: String
        public var to: String
        public var subject: String
        public var body: String
        public var deliveredAt: String
    }

    public func send(_ message: OutboundMessage) async throws {
        let entry = Entry(
            id: message.id, channel: message.channel.rawValue, to: message.recipient, subject: message.subject,
            body: message.body, deliveredAt: ISO8601DateFormatter().string(from: Date())
        )
        var line = try JSONEncoder().encode(entry)
        line.append(0x0A)
        try lock.withLock {
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
    }

    /// Reads every entry, oldest first.
    public static func read(path: String) throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Entry.self, from: Data($0.utf8)) }
    }
}
