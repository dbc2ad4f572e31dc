import Foundation

/// The one reader of the development file outbox (`outbox.jsonl`): every entry at once, or, with
/// ``readNew()``, only what was appended since the last call (a tail that follows the file).
/// Lines that are not an ``OutboxEntry`` (a line still being written) are skipped.
public struct OutboxFile: Sendable {
    /// The file's name inside a server data directory.
    public static let fileName = "outbox.jsonl"

    /// The file's path.
    public let path: String
    private var offset: UInt64 = 0
    private var partial = Data()

    /// The outbox file at `path`.
    public init(path: String) { self.path = path }

    /// The outbox file of a server data directory.
    public init(dataDirectory: String) {
        self.init(path: URL(fileURLWithPath: dataDirectory).appendingPathComponent(Self.fileName).path)
    }

    /// Every entry, oldest first; none when the file does not exist yet.
    public func entries() throws -> [OutboxEntry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return Self.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The entries appended since the previous call (all of them on the first call); a line not
    /// yet ended is kept for the next call. None when the file does not exist yet.
    public mutating func readNew() -> [OutboxEntry] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { return [] }
        offset += UInt64(data.count)
        partial.append(data)
        guard let lastNewline = partial.lastIndex(of: 0x0A) else { return [] }
        let complete = partial[partial.startIndex...lastNewline]
        partial = Data(partial[partial.index(after: lastNewline)...])
        return Self.decode(Data(complete))
    }

    private static func decode(_ data: Data) -> [OutboxEntry] {
        let decoder = JSONDecoder()
        return data.split(separator: 0x0A).compactMap { try? decoder.decode(OutboxEntry.self, from: Data($0)) }
    }
}
