import Logging
import NIOCore
import NIOPosix
import SQLKit
import Testing
@testable import TesseraHTTPKit
import TesseraServerTestSupport

/// ``SQLStatement``: the `?` text runs as written on SQLite and with PostgreSQL's own placeholders
/// there, and gives what the same query written with SQLKit's interpolation gives.
@Suite("SQL statements with ? placeholders")
struct SQLStatementTests {
    @Test("a statement and its interpolated twin give the same rows, on both databases", arguments: TestDatabase.kinds)
    func sameAsInterpolated(kind: TestDatabase) async throws {
        let (database, drop) = try await kind.open()
        do {
            try await database.withSQL { sql in
                try await sql.raw("CREATE TABLE st_items (id TEXT PRIMARY KEY, owner TEXT NOT NULL, n BIGINT NOT NULL)").run()
                for index in 0..<12 {
                    try await sql.statement("INSERT INTO st_items (id, owner, n) VALUES (?, ?, ?)", "i\(index)", "o\(index % 3)", Int64(index * 7)).run()
                }
            }
            for (owner, floor) in [("o0", Int64(0)), ("o1", Int64(20)), ("o2", Int64(100)), ("nobody", Int64(0)), ("o1'; --", Int64(0))] {
                let (viaStatement, viaRaw) = try await database.read { sql in
                    let statement = try await sql.statement("SELECT id, n FROM st_items WHERE owner = ? AND n >= ? ORDER BY id", owner, floor).all()
                    let raw = try await sql.raw("SELECT id, n FROM st_items WHERE owner = \(bind: owner) AND n >= \(bind: floor) ORDER BY id").all()
                    return (
                        try statement.map { "\(try $0.decode(column: "id", as: String.self)):\(try $0.decode(column: "n", as: Int64.self))" },
                        try raw.map { "\(try $0.decode(column: "id", as: String.self)):\(try $0.decode(column: "n", as: Int64.self))" }
                    )
                }
                #expect(viaStatement == viaRaw, "owner \(owner), n ≥ \(floor)")
            }
            // The conditional upsert of TOTP verification's shape: RETURNING tells whether it applied.
            let applied = try await database.withSQL { sql in
                try await sql.statement(
                    """
                    INSERT INTO st_items (id, owner, n) VALUES (?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET n = ? WHERE st_items.n < ? RETURNING id
                    """,
                    "i1", "o1", Int64(50), Int64(50), Int64(50)
                ).first() != nil
            }
            let notApplied = try await database.withSQL { sql in
                try await sql.statement(
                    "INSERT INTO st_items (id, owner, n) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET n = ? WHERE st_items.n < ? RETURNING id",
                    "i1", "o1", Int64(40), Int64(40), Int64(40)
                ).first() != nil
            }
            #expect(applied && !notApplied)
            let n = try await database.read { try await $0.statement("SELECT n FROM st_items WHERE id = ?", "i1").first()?.decode(column: "n", as: Int64.self) }
            #expect(n == 50)
        } catch {
            await database.close()
            await drop()
            throw error
        }
        await database.close()
        await drop()
    }

    @Test("the serialiser writes one bind per placeholder, in order, and the text between them unchanged")
    func serialised() {
        let statement = SQLStatement("SELECT a FROM t WHERE b = ? AND c IN (?, ?) LIMIT 1", ["x", 2, "z"])
        var serializer = SQLSerializer(database: NumberedPlaceholders())
        statement.serialize(to: &serializer)
        #expect(serializer.sql == "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3) LIMIT 1")
        #expect(serializer.binds.count == 3)
        #expect(serializer.binds.first as? String == "x" && serializer.binds.last as? String == "z")
    }

    @Test("placeholders are counted over the text's bytes, the same as walking its UTF-8 view")
    func placeholderCount() {
        let texts = ["", "?", "??", "SELECT 1", "a = ? AND b = ?", "é ? ü ?? 🦊?", String(repeating: "x?", count: 300)]
        for text in texts {
            #expect(SQLStatement.placeholders(in: text) == text.utf8.count { $0 == UInt8(ascii: "?") }, "\(text)")
        }
        // A bridged or substring-made String, whose bytes may not be contiguous until asked.
        let sliced = String("--SELECT ? FROM t WHERE a = ?--".dropFirst(2).dropLast(2))
        #expect(SQLStatement.placeholders(in: sliced) == 2)
    }
}

/// A database that only serialises, with PostgreSQL's numbered placeholders (`$1`, `$2`…).
private struct NumberedPlaceholders: SQLDatabase {
    struct Dialect: SQLDialect {
        var name: String { "numbered" }
        var identifierQuote: any SQLExpression { SQLRaw("\"") }
        var supportsAutoIncrement: Bool { false }
        var autoIncrementClause: any SQLExpression { SQLRaw("") }
        func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("$\(position)") }
        func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "true" : "false") }
    }

    var logger: Logger { Logger(label: "sql-statement-test") }
    var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    var dialect: any SQLDialect { Dialect() }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeSucceededVoidFuture()
    }
}
