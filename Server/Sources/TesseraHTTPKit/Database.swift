import Logging
import SQLKit

/// Which SQL engine a ``Database`` talks to. A few statements differ (locking hints).
public enum DatabaseKind: String, Sendable {
    case sqlite
    case postgres
}

/// The one storage abstraction every repository uses: SQLKit over SQLite or PostgreSQL.
///
/// Repositories write their queries once against `SQLDatabase`; the same queries and the same
/// tests run on both engines.
public protocol Database: Sendable {
    /// The engine behind this database.
    var kind: DatabaseKind { get }
    /// Runs `body` with a database handle outside a transaction (single statements).
    func withSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body`, which only reads and is short (a lookup by key, a bounded page). It sees
    /// everything committed. On SQLite it runs on the writer connection in its next group commit,
    /// whose page cache stays warm; on PostgreSQL on any pooled connection.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body`, which only reads and may take long (a walk over the audit log, pages of it for an
    /// export or a live view), on a connection beside the writer where there is one (SQLite in WAL
    /// mode keeps a few readers), so it never holds up writes. It sees everything committed.
    func scan<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Releases connections.
    func close() async
}

extension Database {
    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T { try await withSQL(body) }
    public func scan<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T { try await read(body) }
}

/// Milliseconds since 1970, the one time representation stored in the database.
public typealias Millis = Int64

extension Duration {
    /// Whole milliseconds of this duration.
    public var millis: Millis {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// Runs `body` between `begin` and COMMIT on one connection, rolling back if it throws.
/// Both engines use it; only the opening statement differs.
public func inTransaction<T: Sendable>(
    _ sql: any SQLDatabase, begin: SQLQueryString, _ body: @Sendable (any SQLDatabase) async throws -> T
) async throws -> T {
    try await sql.raw(begin).run()
    do {
        let value = try await body(sql)
        try await sql.raw("COMMIT").run()
        return value
    } catch {
        try? await sql.raw("ROLLBACK").run()
        throw error
    }
}
