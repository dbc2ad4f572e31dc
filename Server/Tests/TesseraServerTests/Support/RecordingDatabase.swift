import Logging
import NIOCore
import SQLKit
import Synchronization
@testable import TesseraServer

/// A ``Database`` that keeps the text of every statement run through it (binds as placeholders) and
/// marks its transactions, so that a test can compare the database work of two calls.
final class RecordingDatabase: Database {
    let inner: any Database
    private let statements = Mutex<[String]>([])

    init(_ inner: any Database) { self.inner = inner }

    var kind: DatabaseKind { inner.kind }

    func record(_ statement: String) { statements.withLock { $0.append(statement) } }

    /// What `body` ran.
    func recording(_ body: () async throws -> Void) async throws -> [String] {
        statements.withLock { $0 = [] }
        try await body()
        return statements.withLock { $0 }
    }

    func withSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await inner.withSQL { sql in try await body(Recorder(database: sql, sink: self)) }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await inner.read { sql in try await body(Recorder(database: sql, sink: self)) }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        record("BEGIN")
        defer { record("END") }
        return try await inner.transaction { sql in try await body(Recorder(database: sql, sink: self)) }
    }

    func close() async { await inner.close() }

    /// Forwards to the database it wraps, recording each statement first.
    struct Recorder: SQLDatabase {
        let database: any SQLDatabase
        let sink: RecordingDatabase

        var logger: Logger { database.logger }
        var eventLoop: any EventLoop { database.eventLoop }
        var version: (any SQLDatabaseReportedVersion)? { database.version }
        var dialect: any SQLDialect { database.dialect }
        var queryLogLevel: Logger.Level? { database.queryLogLevel }

        func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
            sink.record(database.serialize(query).sql)
            return database.execute(sql: query, onRow)
        }

        func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
            sink.record(database.serialize(query).sql)
            try await database.execute(sql: query, onRow)
        }
    }
}
