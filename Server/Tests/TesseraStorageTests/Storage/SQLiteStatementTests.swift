import SQLiteNIO
import Testing
import TesseraHTTPKit
import TesseraServerTestSupport

/// The kept prepared statements of ``SQLiteDirectConnection``: run again with new values, a statement
/// is not parsed and planned again, and its values are always all given.
@Suite("SQLite statements")
struct SQLiteStatementTests {
    static func connection() async throws -> SQLiteDirectConnection {
        let connection = try SQLiteDirectConnection(path: nil)
        _ = try await connection.run("CREATE TABLE items (id TEXT PRIMARY KEY, kind TEXT NOT NULL, owner TEXT NOT NULL)", [])
        _ = try await connection.run("CREATE TABLE owners (id TEXT PRIMARY KEY, client TEXT NOT NULL)", [])
        for index in 0..<3 { _ = try await connection.run("INSERT INTO owners (id, client) VALUES (?1, ?2)", [.text("o\(index)"), .text("c\(index)")]) }
        for index in 0..<20 {
            _ = try await connection.run(
                "INSERT INTO items (id, kind, owner) VALUES (?1, ?2, ?3)", [.text("i\(index)"), .text(index % 2 == 0 ? "even" : "odd"), .text("o\(index % 3)")]
            )
        }
        return connection
    }

    @Test("a join with a filter on a bound value (the planner looks at it) runs 50 times with new values and is prepared once")
    func notPreparedAgain() async throws {
        let connection = try await Self.connection()
        // `o.client = ?3` filters the joined row: SQLite's planner marks ?3, and clearing the bindings
        // after each run expired the statement, so that every run parsed and planned it again.
        let sql = "SELECT i.id FROM items i JOIN owners o ON o.id = i.owner WHERE i.id = ?1 AND i.kind = ?2 AND o.client = ?3"
        var found = 0
        for index in 0..<50 {
            let row = index % 20
            let result = try await connection.run(sql, [.text("i\(row)"), .text(row % 2 == 0 ? "even" : "odd"), .text(index % 7 == 0 ? "nobody" : "c\(row % 3)")])
            found += result.rows.count
            if index % 7 != 0 { #expect(result.rows.count == 1 && result.rows.first?.first == .text("i\(row)")) }
        }
        #expect(found == 50 - 8)
        #expect(connection.timesReprepared(sql) == 0)
        #expect(connection.timesReprepared("SELECT 1") == nil)
    }

    @Test("a statement given fewer or more values than it has parameters is refused, not run with an earlier run's values")
    func everyValueGiven() async throws {
        let connection = try await Self.connection()
        let sql = "SELECT id FROM items WHERE kind = ?1 AND owner = ?2"
        #expect(try await connection.run(sql, [.text("even"), .text("o0")]).rows.count == 4)
        await #expect(throws: SQLiteStatementError.self) { _ = try await connection.run(sql, [.text("even")]) }
        await #expect(throws: SQLiteStatementError.self) { _ = try await connection.run(sql, [.text("even"), .text("o0"), .text("x")]) }
        #expect(try await connection.run(sql, [.text("odd"), .text("o1")]).rows.count == 4)
    }
}
