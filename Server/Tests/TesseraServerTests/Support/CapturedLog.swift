import Foundation
import Logging
import Synchronization

/// Every log line a runtime writes (all levels, with metadata), so tests can check that no secret
/// ever reaches a log.
final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var logger: Logger {
        var logger = Logger(label: "captured") { label in Handler(label: label, sink: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let label: String
        let sink: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.append("\(event.level) \(label) \(event.message) \(merged) \(event.source) \(event.function)")
        }
    }
}
