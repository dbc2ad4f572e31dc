import ServiceLifecycle

/// The live view's rows: the audit log tailed by sequence number after `after`, keeping the
/// authentication events (`login.*`, `otp.*`, `device.*`, `session.*`). It reads when woken: by this
/// process's appends (``AuditAppendSignal``) and by a poll every second (``ConsoleController``), which
/// finds what other instances on the same PostgreSQL appended. Iterated in the request's own task;
/// it ends when the server shuts down gracefully, so an open console does not hold the shutdown up.
struct ConsoleEventFeed: AsyncSequence, Sendable {
    typealias Element = ConsoleLiveEvent

    /// The event types the live view shows, by prefix.
    static let prefixes = ["login.", "otp.", "device.", "session."]
    /// Rows per read.
    static let page = 200
    /// Quiet wake-ups (about a second each) before a keep-alive.
    static let pingEvery = 15

    let database: any Database
    let audit: any AuditLog
    let wakes: AsyncStream<Void>
    let after: Int64

    /// Whether the live view shows rows of this type.
    static func isLive(_ type: String) -> Bool { prefixes.contains { type.hasPrefix($0) } }

    func makeAsyncIterator() -> Iterator {
        Iterator(database: database, audit: audit, wakes: wakes.cancelOnGracefulShutdown().makeAsyncIterator(), after: after)
    }

    /// Reads a page when it has nothing buffered, then waits for a wake-up when the log had nothing new.
    struct Iterator: AsyncIteratorProtocol {
        let database: any Database
        let audit: any AuditLog
        var wakes: AsyncCancelOnGracefulShutdownSequence<AsyncStream<Void>>.AsyncIterator
        var after: Int64
        var buffer: [AuditEntry] = []
        var quiet = 0

        mutating func next() async throws -> ConsoleLiveEvent? {
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
