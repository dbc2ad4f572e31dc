#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Logging

/// A swift-log handler writing one JSON object a line (`log.format = json`): `timestamp` (UTC,
/// ISO 8601 with milliseconds), `level`, `label`, `message`, and `metadata` (the logger's, the
/// metadata provider's and the call's, the call's winning) when there is any. `tessera serve`
/// bootstraps the logging system with it once, at start.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler for `label` whose lines (each ending in a newline) go to `write`.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    /// A handler writing to standard error, like swift-log's default handler.
    public static func standardError(label: String, metadataProvider: Logger.MetadataProvider?) -> JSONLogHandler {
        JSONLogHandler(label: label, metadataProvider: metadataProvider) { line in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        var object: [String: Any] = [
            "timestamp": Self.timestamp(), "level": event.level.rawValue, "label": label, "message": event.message.description,
        ]
        if !merged.isEmpty { object["metadata"] = merged.mapValues(Self.json) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
              let line = String(data: data, encoding: .utf8)
        else { return }
        write(line + "\n")
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    /// `2026-11-24T02:03:09.123Z`.
    package static func timestamp(_ date: Date = Date()) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(millis / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis % 1000), 3))Z"
    }
}
