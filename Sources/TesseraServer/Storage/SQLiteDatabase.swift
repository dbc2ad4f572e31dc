import Logging
import NIOPosix
import SQLKit
import SQLiteKit

/// SQLite storage: one connection in WAL mode, serialised by an ``AsyncLock`` so each transaction
/// runs alone. SQLite allows one writer at a time anyway; one connection avoids `SQLITE_BUSY`.
public final class SQLiteDatabase: Database {
    public let kind = DatabaseKind.sqlite
    private let connection: SQLiteConnection
    private let lock = AsyncLock()

    private init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Opens (and creates) the database file at `path`; `nil` opens a private in-memory database.
    public static func open(path: String?, logger: Logger) async throws -> SQLiteDatabase {
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        let connection = try await SQLiteConnection.open(
            storage: storage, threadPool: NIOThreadPool.singleton, logger: logger,
            on: MultiThreadedEventLoopGroup.singleton.any()
        ).get()
        let sql = connection.sql(queryLogLevel: nil)
        if path != nil {
            try await sql.raw("PRAGMA journal_mode=WAL").run()
            try await sql.raw("PRAGMA synchronous=NORMAL").run()
        }
        try await sql.raw("PRAGMA busy_timeout=5000").run()
        try await sql.raw("PRAGMA foreign_keys=ON").run()
        return SQLiteDatabase(connection: connection)
    }

    public func withSQL<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let sql = connection.sql(queryLogLevel: nil)
        return try await lock.withLock { try await body(sql) }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let sql = connection.sql(queryLogLevel: nil)
        return try await lock.withLock { try await inTransaction(sql, begin: "BEGIN IMMEDIATE", body) }
    }

    public func close() async {
        try? await connection.close().get()
    }
}
