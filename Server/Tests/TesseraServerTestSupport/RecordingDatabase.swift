import Logging
import NIOCore
import SQLKit
import Synchronization
@testable import TesseraServer

/// A ``Database`` that keeps the text of every statement run through it (binds as placeholders) and
/// marks its transactions, so that a test can compare the database work of two calls.
package final class RecordingDatabase: Database {
    package let inner: any Database
    private let statements = Mutex<[String]>([])

    package init(_ inner: any Database) { self.inner = inner }

    package var kind: DatabaseKind { inner.kind }

    package func record(_ statement: String) { statements.withLock { $0.append(statement) } }

    /// What `body` ran.
    package func recording(_ body: () async throws -> Void) async throws -> [String] {
        statements.withLock { $0 = [] }
        try await body()
        return statements.withLock { $0 }
    }

    package func withSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await inner.withSQL { sql in try await body(Recorder(database: sql, sink: self)) }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await inner.read { sql in try await body(Recorder(database: sql, sink: self)) }
    }

    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        record("BEGIN")
        defer { record("END") }
        return try await inner.transaction { sql in try await body(Recorder(database: sql, sink: self)) }
    }

    package func close() async { await inner.close() }

    /// Forwards to the database it wraps, recording each statement first.
    package struct Recorder: SQLDatabase {
        package let database: any SQLDatabase
        package let sink: RecordingDatabase

        package var logger: Logger { database.logger }
        package var eventLoop: any EventLoop { database.eventLoop }
        package var version: (any SQLDatabaseReportedVersion)? { database.version }
        package var dialect: any SQLDialect { database.dialect }
        package var queryLogLevel: Logger.Level? { database.queryLogLevel }

        package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
            sink.record(database.serialize(query).sql)
            return database.execute(sql: query, onRow)
        }

        package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
            sink.record(database.serialize(query).sql)
            try await database.execute(sql: query, onRow)
        }
    }
}
