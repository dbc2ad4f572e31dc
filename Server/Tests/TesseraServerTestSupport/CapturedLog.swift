import Foundation
import Logging
import Synchronization

/// Every log line a runtime writes (all levels, with metadata), so tests can check that no secret
/// ever reaches a log.
package final class CapturedLog: Sendable {
    package init() {}

    private let lines = Mutex<[String]>([])

    package var text: String { lines.withLock { $0.joined(separator: "\n") } }

    package func append(_ line: String) { lines.withLock { $0.append(line) } }

    package var logger: Logger {
        var logger = Logger(label: "captured") { label in Handler(label: label, sink: self) }
        logger.logLevel = .trace
        return logger
    }

    package struct Handler: LogHandler {
        package let label: String
        package let sink: CapturedLog
        package var metadata: Logger.Metadata = [:]
        package var logLevel: Logger.Level = .trace

        package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        package func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.append("\(event.level) \(label) \(event.message) \(merged) \(event.source) \(event.function)")
        }
    }
}
