import Foundation
import Synchronization
import Logging
import NIOPosix
import SQLKit
import SQLiteKit

/// SQLite storage in WAL mode: one writer connection, serialised by an ``AsyncLock`` so each
/// transaction runs alone (SQLite allows one writer at a time anyway; one avoids `SQLITE_BUSY`), and
/// for a file database a few read-only connections for ``read(_:)``, which WAL lets run beside it.
public final class SQLiteDatabase: Database {
    public let kind = DatabaseKind.sqlite
    private let connection: SQLiteConnection
    private let lock = AsyncLock()
    private let readers: [(connection: SQLiteConnection, lock: AsyncLock)]
    private let nextReader = ManagedCounter()

    private init(connection: SQLiteConnection, readers: [SQLiteConnection]) {
        self.connection = connection
        self.readers = readers.map { ($0, AsyncLock()) }
    }

    /// Opens (and creates) the database file at `path`; `nil` opens a private in-memory database
    /// (which has no separate readers).
    public static func open(path: String?, readers: Int = 2, logger: Logger) async throws -> SQLiteDatabase {
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        func connect() async throws -> SQLiteConnection {
            let connection = try await SQLiteConnection.open(
                storage: storage, threadPool: NIOThreadPool.singleton, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any()
            ).get()
            let sql = connection.sql(queryLogLevel: nil)
            // Other processes on the same file (a second instance, the admin CLI, instances starting
            // together and migrating) hold the write lock in turn: wait for it rather than fail.
            try await sql.raw("PRAGMA busy_timeout=30000").run()
            try await sql.raw("PRAGMA foreign_keys=ON").run()
            return connection
        }
        let connection = try await connect()
        var readerConnections: [SQLiteConnection] = []
        if path != nil {
            let sql = connection.sql(queryLogLevel: nil)
            try await sql.raw("PRAGMA journal_mode=WAL").run()
            try await sql.raw("PRAGMA synchronous=NORMAL").run()
            for _ in 0..<readers {
                let reader = try await connect()
                try await reader.sql(queryLogLevel: nil).raw("PRAGMA query_only=1").run()
                readerConnections.append(reader)
            }
        }
        return SQLiteDatabase(connection: connection, readers: readerConnections)
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await withSQL(body) }
        let reader = readers[nextReader.next() % readers.count]
        let sql = reader.connection.sql(queryLogLevel: nil)
        return try await reader.lock.withLock { try await body(sql) }
    }

    public func withSQL<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let sql = connection.sql(queryLogLevel: nil)
        return try await lock.withLock { try await body(sql) }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let sql = connection.sql(queryLogLevel: nil)
        return try await lock.withLock { try await inTransaction(sql, begin: "BEGIN IMMEDIATE", body) }
    }

    /// A database dropped without ``close()`` (a failed start, a test that stopped early) still closes
    /// its connections, in the background.
    deinit {
        for open in ([connection] + readers.map(\.connection)) where !open.isClosed { _ = open.close() }
    }

    public func close() async {
        for reader in readers { try? await reader.connection.close().get() }
        try? await connection.close().get()
    }
}

/// A thread-safe round-robin counter.
final class ManagedCounter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value &+= 1
            return value & Int.max
        }
    }
}
