import Foundation
import Synchronization
import Logging
import SQLKit

/// SQLite storage in WAL mode: one writer connection whose writes and short reads run in group
/// commits (one batch at a time: SQLite allows one writer anyway, and one avoids `SQLITE_BUSY`), and
/// for a file database a few read-only connections for ``scan(_:)``, which WAL lets run beside it.
///
/// Short reads go to the writer because it is faster there: a reader connection in WAL mode throws
/// its whole page cache away whenever another connection wrote, so under a steady write load every
/// read on a reader fetched its pages again, and 64 requests queueing for two reader locks handed
/// the lock over once per read; a batch of reads on the writer runs back to back on a warm cache
/// (measured: 14 % less CPU per TOTP verification, about 30 % more introspections per second).
public final class SQLiteDatabase: Database {
    public let kind = DatabaseKind.sqlite
    private let connection: SQLiteDirectConnection
    private let writer: GroupCommit
    private let readers: [(connection: SQLiteDirectConnection, lock: AsyncLock)]
    private let nextReader = ManagedCounter()
    private let logger: Logger

    private init(connection: SQLiteDirectConnection, readers: [SQLiteDirectConnection], logger: Logger) {
        self.connection = connection
        writer = GroupCommit(
            sql: SQLiteDirectSQL(connection: connection, logger: logger),
            readOnlySQL: SQLiteDirectSQL(connection: connection, logger: logger, readOnly: true),
            control: { statement in _ = try await connection.run(statement, []) }
        )
        self.readers = readers.map { ($0, AsyncLock()) }
        self.logger = logger
    }

    /// Opens (and creates) the database file at `path`; `nil` opens a private in-memory database
    /// (which has no separate readers).
    ///
    /// Other processes on the same file (a second instance, the admin CLI, instances starting
    /// together and migrating) hold the write lock in turn: a statement waits up to 30 s for it
    /// rather than fail (see ``SQLiteDirectConnection``).
    public static func open(path: String?, readers: Int = 2, logger: Logger) async throws -> SQLiteDatabase {
        func connect() async throws -> SQLiteDirectConnection {
            let connection = try SQLiteDirectConnection(path: path)
            _ = try await connection.run("PRAGMA foreign_keys=ON", [])
            return connection
        }
        let connection = try await connect()
        var readerConnections: [SQLiteDirectConnection] = []
        if path != nil {
            _ = try await connection.run("PRAGMA journal_mode=WAL", [])
            _ = try await connection.run("PRAGMA synchronous=NORMAL", [])
            // The writer's pages stay in its own cache (32 MiB, filled as pages are used; SQLite's
            // default is 2 MiB) instead of being read again from the file; the savepoint journal of a
            // group commit's jobs is kept in memory, not in a temporary file.
            _ = try await connection.run("PRAGMA cache_size=-32768", [])
            _ = try await connection.run("PRAGMA temp_store=MEMORY", [])
            for _ in 0..<readers {
                let reader = try await connect()
                _ = try await reader.run("PRAGMA query_only=1", [])
                readerConnections.append(reader)
            }
        }
        return SQLiteDatabase(connection: connection, readers: readerConnections, logger: logger)
    }

    /// Runs in the writer's next group commit, without a savepoint of its own.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writer.run(transaction: false, readOnly: true, body)
    }

    /// On a reader connection (round robin), beside the writer; the writer's group commit when
    /// there is none (an in-memory database).
    public func scan<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await read(body) }
        let reader = readers[nextReader.next() % readers.count]
        let sql = SQLiteDirectSQL(connection: reader.connection, logger: logger)
        return try await reader.lock.withLock { try await body(sql) }
    }

    /// Runs in the writer's next group commit (see ``GroupCommit``); alone, its statements autocommit.
    public func withSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writer.run(transaction: false, body)
    }

    /// Runs in the writer's next group commit (see ``GroupCommit``), atomically.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writer.run(transaction: true, body)
    }

    /// The writer's queued writes and the batches it ran (see ``GroupCommit``).
    var groupCommitStatistics: (queued: Int, batches: Int) { writer.statistics }

    /// Whether the writer's batches ever went to its writer task (``GroupCommit``).
    var groupCommitWriterStarted: Bool { writer.writerStarted }

    /// Whether ``close()`` began.
    var isClosing: Bool { writer.isClosed }

    public func close() async {
        await writer.close()   // the writes queued before the close are committed first
        for reader in readers { reader.connection.close() }
        connection.close()
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
