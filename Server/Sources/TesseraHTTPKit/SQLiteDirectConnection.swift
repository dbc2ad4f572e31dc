import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization
import VaporCSQLite

/// One SQLite connection that runs its statements in the calling task, with its prepared statements
/// kept for reuse.
///
/// SQLiteNIO runs every statement on a thread pool and prepares it anew each time: two thread hops
/// and one SQL parse per statement, which were most of a TOTP verification's cost. Here a statement
/// is prepared once per SQL text and runs where it is called; the callers (``SQLiteDatabase``)
/// already give each connection to one task at a time, and its statements are short index lookups.
///
/// Waiting for another process's write lock must not block a concurrency thread, so the connection
/// never waits inline (busy timeout 0): a statement that meets `SQLITE_BUSY` runs again on the NIO
/// thread pool, where it waits up to the busy timeout as SQLiteNIO's connections did.
public final class SQLiteDirectConnection: Sendable {
    private struct State: ~Copyable {
        var handle: OpaquePointer?
        var statements: [String: OpaquePointer] = [:]
    }

    /// Prepared statements kept per connection; past this many the cache starts again empty.
    static let statementCacheLimit = 256
    private let state: Mutex<State>
    private let busyTimeoutMillis: Int32

    /// Opens (and creates) the database file at `path`, or a private in-memory database for `nil`.
    public init(path: String?, busyTimeoutMillis: Int32 = 30_000) throws {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite_nio_sqlite3_open_v2(path ?? ":memory:", &opened, flags, nil)
        guard code == SQLITE_OK, let handle = opened else {
            let message = opened.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "out of memory"
            if let opened { sqlite_nio_sqlite3_close(opened) }
            throw SQLiteStatementError(code: code, message: message)
        }
        sqlite_nio_sqlite3_busy_timeout(handle, 0)
        state = Mutex(State(handle: handle))
        self.busyTimeoutMillis = busyTimeoutMillis
    }

    /// Runs one statement with its binds and returns its rows. Inline unless the database is locked
    /// by another connection; then on the thread pool, waiting for the lock. `readOnly` refuses a
    /// statement that would change the database (SQLITE_READONLY), before it runs.
    public func run(_ sql: String, _ binds: [SQLiteData], readOnly: Bool = false) async throws -> SQLiteResult {
        do {
            return try state.withLock { try Self.execute(sql, binds, readOnly: readOnly, in: &$0) }
        } catch let error as SQLiteStatementError where error.isBusy {
            let timeout = busyTimeoutMillis
            return try await NIOThreadPool.singleton.runIfActive {
                try self.state.withLock { state in
                    sqlite_nio_sqlite3_busy_timeout(state.handle, timeout)
                    defer { sqlite_nio_sqlite3_busy_timeout(state.handle, 0) }
                    return try Self.execute(sql, binds, readOnly: readOnly, in: &state)
                }
            }
        }
    }

    /// How many times SQLite prepared the statement `sql` again since this connection first
    /// prepared it (after a schema change, or when a new value bound to a parameter the query
    /// planner looked at may change the plan); nil when it is not among the kept statements.
    public func timesReprepared(_ sql: String) -> Int? {
        state.withLock { state in
            state.statements[sql].map { Int(sqlite_nio_sqlite3_stmt_status($0, SQLITE_STMTSTATUS_REPREPARE, 0)) }
        }
    }

    /// Closes the connection; later statements fail.
    public func close() {
        state.withLock { Self.close(&$0) }
    }

    deinit {
        state.withLock { Self.close(&$0) }
    }

    /// Whether ``close()`` ran.
    public var isClosed: Bool { state.withLock { $0.handle == nil } }

    private static func close(_ state: inout State) {
        for statement in state.statements.values { sqlite_nio_sqlite3_finalize(statement) }
        state.statements = [:]
        if let handle = state.handle { sqlite_nio_sqlite3_close(handle) }
        state.handle = nil
    }

    private static func execute(_ sql: String, _ binds: [SQLiteData], readOnly: Bool, in state: inout State) throws -> SQLiteResult {
        guard let handle = state.handle else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "connection closed") }
        let statement = try prepared(sql, handle: handle, in: &state)
        guard !readOnly || sqlite_nio_sqlite3_stmt_readonly(statement) != 0 else {
            throw SQLiteStatementError(code: SQLITE_READONLY, message: "a read may not change the database")
        }
        // Every parameter is bound on every run, so nothing of an earlier run's values is left to
        // clear. `sqlite3_clear_bindings` would also expire the statement whenever the query
        // planner looked at a parameter's value (a filter `column = ?` that is not the index
        // lookup, a `LIMIT ?`), so that each run parsed and planned it again: 12 % of the server's
        // CPU in an introspection of session tokens.
        let parameters = Int(sqlite_nio_sqlite3_bind_parameter_count(statement))
        guard parameters == binds.count else {
            throw SQLiteStatementError(code: SQLITE_RANGE, message: "\(binds.count) values for the statement's \(parameters) parameters")
        }
        defer { sqlite_nio_sqlite3_reset(statement) }
        for (offset, bind) in binds.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch bind {
            case .blob(let value):
                code = value.withUnsafeReadableBytes {
                    sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), transient)
                }
            case .float(let value): code = sqlite_nio_sqlite3_bind_double(statement, index, value)
            case .integer(let value): code = sqlite_nio_sqlite3_bind_int64(statement, index, Int64(value))
            case .null: code = sqlite_nio_sqlite3_bind_null(statement, index)
            case .text(let value):
                code = sqlite_nio_sqlite3_bind_text64(statement, index, value, UInt64(value.utf8.count), transient, UInt8(SQLITE_UTF8))
            }
            guard code == SQLITE_OK else { throw SQLiteStatementError(code: code, handle: handle) }
        }
        let count = sqlite_nio_sqlite3_column_count(statement)
        var columns: [String] = []
        columns.reserveCapacity(Int(count))
        for column in 0..<count {
            columns.append(sqlite_nio_sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "")
        }
        var rows: [[SQLiteData]] = []
        while true {
            let code = sqlite_nio_sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw SQLiteStatementError(code: code, handle: handle) }
            var row: [SQLiteData] = []
            row.reserveCapacity(Int(count))
            for column in 0..<count { row.append(value(statement, column)) }
            rows.append(row)
        }
        return SQLiteResult(columns: columns, rows: rows)
    }

    private static func prepared(_ sql: String, handle: OpaquePointer, in state: inout State) throws -> OpaquePointer {
        if let statement = state.statements[sql] { return statement }
        var statement: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw SQLiteStatementError(code: code, handle: handle) }
        if state.statements.count >= statementCacheLimit {
            for old in state.statements.values { sqlite_nio_sqlite3_finalize(old) }
            state.statements = [:]
        }
        state.statements[sql] = statement
        return statement
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .null }
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            var buffer = ByteBufferAllocator().buffer(capacity: length)
            if let blob = sqlite_nio_sqlite3_column_blob(statement, column) {
                buffer.writeBytes(UnsafeRawBufferPointer(start: blob, count: length))
            }
            return .blob(buffer)
        default: return .null
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// The rows one statement returned: column names once, then each row's values in that order.
public struct SQLiteResult: Sendable {
    public let columns: [String]
    public let rows: [[SQLiteData]]
}

/// A failed SQLite call: its (extended) result code and the connection's message.
public struct SQLiteStatementError: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067).
    public let code: Int32
    public let message: String

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    init(code: Int32, handle: OpaquePointer) {
        self.init(code: code, message: String(cString: sqlite_nio_sqlite3_errmsg(handle)))
    }

    /// Another connection holds the lock this statement needs.
    var isBusy: Bool { code & 0xFF == SQLITE_BUSY }
    /// A UNIQUE or PRIMARY KEY constraint failed.
    public var isUniqueViolation: Bool { code == SQLITE_CONSTRAINT | 8 << 8 || code == SQLITE_CONSTRAINT | 6 << 8 }  // _UNIQUE, _PRIMARYKEY

    public var description: String { "SQLite error \(code): \(message)" }
}
