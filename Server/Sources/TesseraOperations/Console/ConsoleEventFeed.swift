import ServiceLifecycle

/// The live view's rows: the audit log tailed by sequence number after `after`, keeping the
/// authentication events (`login.*`, `otp.*`, `device.*`, `session.*`). It reads when woken: by this
/// process's appends (``AuditAppendSignal``) and by a poll every second (``ConsoleController``), which
/// finds what other instances on the same PostgreSQL appended. Iterated in the request's own task;
/// it ends when the server shuts down gracefully, so an open console does not hold the shutdown up.
package struct ConsoleEventFeed: AsyncSequence, Sendable {
    package typealias Element = ConsoleLiveEvent

    /// The event types the live view shows, by prefix.
    package static let prefixes = ["login.", "otp.", "device.", "session."]
    /// Rows per read.
    package static let page = 200
    /// Quiet wake-ups (about a second each) before a keep-alive.
    package static let pingEvery = 15

    package let database: any Database
    package let audit: any AuditLog
    package let wakes: AsyncStream<Void>
    package let after: Int64

    /// Whether the live view shows rows of this type.
    package static func isLive(_ type: String) -> Bool { prefixes.contains { type.hasPrefix($0) } }

    package func makeAsyncIterator() -> Iterator {
        Iterator(database: database, audit: audit, wakes: wakes.cancelOnGracefulShutdown().makeAsyncIterator(), after: after)
    }

    /// Reads a page when it has nothing buffered, then waits for a wake-up when the log had nothing new.
    package struct Iterator: AsyncIteratorProtocol {
        package let database: any Database
        package let audit: any AuditLog
        package var wakes: AsyncCancelOnGracefulShutdownSequence<AsyncStream<Void>>.AsyncIterator
        package var after: Int64
        package var buffer: [AuditEntry] = []
        package var quiet = 0

        package mutating func next() async throws -> ConsoleLiveEvent? {
            while buffer.isEmpty {
                let query = AuditQuery(after: after, limit: ConsoleEventFeed.page)
                let audit = self.audit
                let rows = try await database.scan { try await audit.entries(query, in: $0) }
                if let last = rows.last { after = last.seq }
                buffer = rows.filter { ConsoleEventFeed.isLive($0.type) }
                if !buffer.isEmpty || rows.count == ConsoleEventFeed.page { continue }
                guard await wakes.next() != nil else { return nil }
                quiet += 1
                if quiet >= ConsoleEventFeed.pingEvery {
                    quiet = 0
                    return .ping
                }
            }
            quiet = 0
            return .entry(buffer.removeFirst())
        }
    }
}
