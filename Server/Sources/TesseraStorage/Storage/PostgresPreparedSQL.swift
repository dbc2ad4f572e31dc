import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit
import Synchronization
import TesseraHTTPKit

/// SQLKit over one pooled `PostgresConnection` whose queries run as named prepared statements:
/// PostgreSQL parses, analyses and plans each statement once per connection instead of at every
/// execution. Those three steps were 44 % of PostgreSQL's CPU in a TOTP verification (two short
/// statements), and the text of each statement is turned into PostgreSQL's `$n` form once per
/// process instead of by SQLKit's serialiser at every call.
///
/// Only statements that read or change rows (`SELECT`, `INSERT`, `UPDATE`, `DELETE`, `WITH`) whose
/// binds are all of PostgreSQL's own types (text, integers, booleans, doubles, bytes, NULL) are
/// prepared, with at most ``PreparedStatementNames/maxBinds`` binds, and at most
/// ``PreparedStatementNames/limit`` distinct ones per process; everything else (transaction control,
/// DDL, batches, a statement past the limit) runs as before, unnamed. So does a statement that begins with a comment
/// (``PostgresPlanning/perCall``): PostgreSQL then plans it at each call for the tables as they are, where a
/// generic plan made once would be wrong for good (a batch over arrays whose plan, made while the tables were small,
/// scanned them whole once they were not). A statement's name
/// includes its binds' types, so a NULL in one call and a value in another never share a plan with a
/// wrong parameter type.
///
/// Turned off with `?prepare=off` on the database URL, for a connection pooler that hands each
/// transaction another server connection (PgBouncer's transaction mode before 1.21).
struct PostgresPreparedSQL: SQLDatabase {
    let connection: PostgresConnection
    /// The same connection through PostgresKit, for what is not prepared.
    let base: any SQLDatabase
    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { nil }

    /// Whether each statement commits by itself (``PostgresDatabase/withSQL(_:)``), so that one refused
    /// for a changed table can run again at once; inside a transaction the error ends the transaction.
    let autocommit: Bool

    /// Whether statements are prepared (`?prepare=off`: every statement runs unnamed).
    let prepares: Bool

    init(connection: PostgresConnection, autocommit: Bool, prepares: Bool = true) {
        self.connection = connection
        self.base = connection.sql(queryLogLevel: nil)
        self.autocommit = autocommit
        self.prepares = prepares
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        // A task of its own, outside the lease's preference: it goes to the connection's loop itself.
        promise.completeWithTask {
            try await withTaskExecutorPreference(EventLoopTaskExecutor.on(connection.eventLoop)) { try await run(query, onRow) }
        }
        return promise.futureResult
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await run(query, onRow)
    }

    /// Runs `query`, prepared when it can be, on a connection still open. A statement written to a connection
    /// PostgreSQL has closed (a restart, a failover: the pool may lend it before it has seen the close) is dropped by
    /// the channel and never answered: its caller waited for ever. This runs on the connection's event loop (its
    /// lease does: ``PostgresDatabase``), so the check and the write, before the first suspension, cannot have the
    /// close in between.
    private func run(_ query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        connection.eventLoop.assertInEventLoop()
        guard !connection.isClosed else { throw AppError.storageUnavailable() }
        guard prepares else { return try await base.execute(sql: query, onRow) }
        let text: String, binds: [any Encodable & Sendable]
        let questionMarks = query is TesseraHTTPKit.SQLStatement
        if let statement = query as? TesseraHTTPKit.SQLStatement {
            (text, binds) = (statement.text, statement.binds)
        } else {
            (text, binds) = serialize(query)
        }
        guard binds.count <= PreparedStatementNames.maxBinds, let (bindings, types) = Self.bindings(binds),
              let prepared = PreparedStatementNames.shared.prepared(text: text, questionMarks: questionMarks, types: types)
        else {
            return try await base.execute(sql: query, onRow)
        }
        do {
            try await DynamicPreparedStatement.$current.withValue(prepared) {
                let rows = try await connection.execute(DynamicPreparedStatement(bindings: bindings), logger: logger)
                for try await row in rows { onRow(row.sql(decodingContext: .default)) }
            }
        } catch let error as PSQLError where error.code == .server && !Self.executionError(error.serverInfo?[.sqlState]) {
            // PostgreSQL refused the statement. If it was the preparation that failed (in a transaction
            // an earlier error had aborted, say), postgres-nio keeps that failure for the name on this
            // connection and would answer it to every later call: the statement gets a new name.
            PreparedStatementNames.shared.forget(text: text, questionMarks: questionMarks, types: types)
            // "cached plan must not change result type" (0A000): another instance changed a table under the
            // statement (a migration). Prepared afresh at once when the statement commits by itself; inside a
            // transaction the error has ended the transaction, and the next call prepares it.
            guard autocommit, error.serverInfo?[.sqlState] == "0A000" else { throw error }
            try await run(query, onRow)
        }
    }

    /// SQLSTATE classes that only the execution raises (data exceptions, constraint violations, serialisation
    /// failures), never a preparation: the statement keeps its name.
    static func executionError(_ sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState.hasPrefix("23") || sqlState.hasPrefix("40")
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }

    /// The binds in PostgreSQL's binary form and a signature of their types; nil when one of them is of
    /// a type PostgresKit encodes through `Encodable` (JSON, arrays), which then runs unprepared.
    static func bindings(_ binds: [any Encodable & Sendable]) -> (PostgresBindings, [UInt32])? {
        var bindings = PostgresBindings(capacity: binds.count)
        var types = [UInt32]()
        types.reserveCapacity(binds.count)
        for bind in binds {
            if let optional = bind as? any OptionalBind, optional.isNone {
                bindings.appendNull()
                types.append(0)
            } else if let value = bind as? any PostgresThrowingDynamicTypeEncodable {
                guard (try? bindings.append(value, context: .default)) != nil else { return nil }
                types.append(value.psqlType.rawValue)
            } else {
                return nil
            }
        }
        return (bindings, types)
    }
}

/// The name and PostgreSQL text of one prepared statement.
struct PreparedStatementText: Sendable {
    let name: String
    let sql: String
}

/// A prepared statement whose name and text are those of the task's current call: postgres-nio names
/// prepared statements by type, and reads `name` and `sql` only while `execute` runs.
struct DynamicPreparedStatement: PostgresPreparedStatement {
    @TaskLocal static var current = PreparedStatementText(name: "", sql: "")
    static var name: String { current.name }
    static var sql: String { current.sql }
    typealias Row = PostgresRow
    let bindings: PostgresBindings
    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// How PostgreSQL plans a statement of ours (``PostgresPreparedSQL``).
package enum PostgresPlanning {
    /// The opening of a statement that PostgreSQL plans at each call for the tables as they are (it is not prepared).
    package static let perCall = "/* planned at each call */ "
}

/// The process's prepared statements: one name per statement text and bind types, shared by every
/// connection (each prepares a name the first time it runs it).
final class PreparedStatementNames: Sendable {
    static let shared = PreparedStatementNames()
    /// Distinct statements prepared at most; past it, new ones run unprepared (a statement whose
    /// text is built at run time, such as an `IN` list, never fills PostgreSQL's memory).
    static let limit = 512
    /// Binds of a statement prepared at most: one with more is a batch whose text changes with its size
    /// (a multi-row INSERT, a long `IN` list), run unprepared. (A rate-counter increment of two spread keys
    /// reads 34 rows by name beside its upsert: 41 binds.)
    static let maxBinds = 48

    private struct Key: Hashable {
        let text: String
        let types: [UInt32]
    }
    private struct State {
        var names: [Key: PreparedStatementText] = [:]
        var next = 0
    }
    private let state = Mutex(State())

    /// The statement to run for `text` (written with `?` placeholders when `questionMarks`, else in
    /// PostgreSQL's `$n` form) and bind types; nil when it is not one to prepare.
    func prepared(text: String, questionMarks: Bool, types: [UInt32]) -> PreparedStatementText? {
        let key = Key(text: text, types: types)
        if let known = state.withLock({ $0.names[key] }) { return known }
        guard Self.preparable(text) else { return nil }
        let sql = questionMarks ? Self.numbered(text) : text
        return state.withLock { state in
            if let known = state.names[key] { return known }
            guard state.names.count < Self.limit else { return nil }
            let prepared = PreparedStatementText(name: "tessera_\(state.next)", sql: sql)
            state.next += 1
            state.names[key] = prepared
            return prepared
        }
    }

    /// Drops a statement's name, so that its next call prepares it again under a new one.
    func forget(text: String, questionMarks: Bool, types: [UInt32]) {
        _ = state.withLock { $0.names.removeValue(forKey: Key(text: text, types: types)) }
    }

    /// Whether `text` reads or changes rows (what a prepared statement is for); a statement that opens with a comment
    /// (``PostgresPlanning/perCall``) is not prepared.
    static func preparable(_ text: String) -> Bool {
        let head = text.utf8.drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\t") })
            .prefix(6).map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
        for verb in ["select", "insert", "update", "delete"] where head.elementsEqual(verb.utf8) { return true }
        return head.starts(with: "with".utf8) && head.count > 4 && [UInt8(ascii: " "), UInt8(ascii: "\n")].contains(head[4])
    }

    /// `text` with its `?` placeholders numbered `$1`, `$2`… (``SQLStatement``'s text has no other `?`).
    static func numbered(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        var index = 0
        for part in text.split(separator: "?", omittingEmptySubsequences: false) {
            if index > 0 { result += "$\(index)" }
            result += part
            index += 1
        }
        return result
    }
}

/// An optional bind, asked whether it is empty (`bind as Optional<Any>` wraps an existential instead).
protocol OptionalBind {
    var isNone: Bool { get }
}

extension Optional: OptionalBind {
    var isNone: Bool { self == nil }
}
