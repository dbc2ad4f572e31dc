import Foundation
import SQLKit
import Testing
import TesseraTestSupport
@testable import TesseraServer
@testable import TesseraStorage
import TesseraServerTestSupport

/// ``PostgresPreparedSQL``: statements run as named prepared statements, once prepared per connection;
/// a NULL and a value in the same place get statements of their own; a table changed under a prepared
/// `SELECT *` is prepared afresh; `?prepare=off` turns it off; an unknown URL option stops the start.
@Suite("PostgreSQL prepared statements")
struct PostgresPreparedStatementTests {
    static var postgres: [TestDatabase] { TestDatabase.kinds.filter { $0 == .postgres } }

    /// Runs `body` on a fresh database of the test server (the URL with `suffix`), closed and dropped afterwards.
    static func withFreshDatabase(_ suffix: String = "", _ body: (PostgresDatabase) async throws -> Void) async throws {
        let url = try await TestDatabase.freshPostgresURL()
        let database = try await PostgresDatabase.open(url: url + suffix, logger: TestDatabase.logger)
        do {
            try await body(database)
        } catch {
            await database.close()
            await TestDatabase.drop(url)
            throw error
        }
        await database.close()
        await TestDatabase.drop(url)
    }

    /// The statements this session has prepared whose text names `table`.
    static func prepared(naming table: String, in sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE \(bind: "%\(table)%")")
            .first()?.decode(column: "n", as: Int.self) ?? -1
    }

    @Test("a statement is prepared once per connection and gives the same rows each time; NULL and a value share no plan", arguments: postgres)
    func preparedOnce(kind: TestDatabase) async throws {
        try await Self.withFreshDatabase { database in
            let (rows, count) = try await database.withSQL { sql in
                try await sql.raw("CREATE TABLE pp_items (id TEXT PRIMARY KEY, note INTEGER, n BIGINT NOT NULL)").run()
                // NULL first, then a value, in the same place: PostgreSQL would infer `note` as int4 for a statement
                // prepared with an untyped NULL and then refuse the 8-byte integer bound next.
                for (index, note) in [(0, nil), (1, 7), (2, nil), (3, 9)] as [(Int, Int?)] {
                    try await sql.statement("INSERT INTO pp_items (id, note, n) VALUES (?, ?, ?)", "i\(index)", note, Int64(index)).run()
                }
                var rows: [[String]] = []
                for _ in 0..<3 {
                    rows.append(try await sql.raw("SELECT id, note FROM pp_items WHERE n >= \(bind: Int64(1)) ORDER BY id").all().map {
                        "\(try $0.decode(column: "id", as: String.self))=\(try $0.decode(column: "note", as: Int?.self).map(String.init) ?? "null")"
                    })
                }
                return (rows, try await Self.prepared(naming: "pp_items", in: sql))
            }
            #expect(rows == Array(repeating: ["i1=7", "i2=null", "i3=9"], count: 3))
            // The INSERT with a NULL note, the INSERT with a value, the SELECT: three statements, each once.
            #expect(count == 3)
        }
    }

    @Test("a statement opened by PostgresPlanning.perCall is not prepared (planned at each call), with array binds; the same text without it is", arguments: postgres)
    func plannedAtEachCall(kind: TestDatabase) async throws {
        try await Self.withFreshDatabase { database in
            let (rows, count) = try await database.withSQL { sql in
                try await sql.raw("CREATE TABLE pc_items (id TEXT PRIMARY KEY)").run()
                var rows: [Int] = []
                for ids in [["a"], ["b", "c"], ["d", "e", "f"]] {
                    let inserted = try await sql.raw(
                        "\(unsafeRaw: PostgresPlanning.perCall)WITH added AS (INSERT INTO pc_items (id) SELECT unnest(\(bind: ids)::text[]) RETURNING id) SELECT count(*)::int AS n FROM added"
                    ).first()?.decode(column: "n", as: Int.self)
                    rows.append(inserted ?? -1)
                }
                let before = try await Self.prepared(naming: "pc_items", in: sql)
                _ = try await sql.raw("SELECT count(*)::int AS n FROM pc_items WHERE id = ANY(\(bind: ["a", "b"])::text[])").all()
                return (rows, [before, try await Self.prepared(naming: "pc_items", in: sql)])
            }
            #expect(rows == [1, 2, 3])
            #expect(count == [0, 1])
        }
    }

    @Test("a column added under a prepared SELECT * (another instance's migration): the next call has the new column", arguments: postgres)
    func tableChanged(kind: TestDatabase) async throws {
        try await Self.withFreshDatabase { database in
            let columns = try await database.withSQL { sql -> [Int] in
                try await sql.raw("CREATE TABLE pp_wide (id TEXT PRIMARY KEY, a TEXT NOT NULL)").run()
                try await sql.raw("INSERT INTO pp_wide (id, a) VALUES ('x', 'y')").run()
                var columns: [Int] = []
                for step in 0..<3 {
                    if step == 2 { try await sql.raw("ALTER TABLE pp_wide ADD COLUMN b TEXT").run() }
                    let row = try await sql.raw("SELECT * FROM pp_wide WHERE id = \(bind: "x")").first()
                    columns.append(row?.allColumns.count ?? 0)
                }
                return columns
            }
            #expect(columns == [2, 2, 3])
        }
    }

    @Test("?prepare=off runs every statement unnamed; ?pool_max_conns sizes the pool; an unknown URL option or an invalid value stops the start, naming it", arguments: postgres)
    func urlOptions(kind: TestDatabase) async throws {
        try await Self.withFreshDatabase("?prepare=off") { database in
            let count = try await database.withSQL { sql in
                try await sql.raw("CREATE TABLE pp_off (id TEXT PRIMARY KEY)").run()
                for index in 0..<3 { try await sql.statement("INSERT INTO pp_off (id) VALUES (?)", "i\(index)").run() }
                return try await Self.prepared(naming: "pp_off", in: sql)
            }
            #expect(count == 0)
        }
        for (suffix, named) in [("?prepared=off", "\"prepared\""), ("?prepare=maybe", "prepare=maybe"), ("?sslmode=sometimes", "sslmode=sometimes"),
                                ("?pool_max_conns=0", "pool_max_conns=0"), ("?pool_max_conns=many", "pool_max_conns=many")] {
            let url = "postgres://postgres:secret@127.0.0.1:5432/tessera" + suffix  // refused before any connection
            let error = #expect(throws: ConfigurationError.self) { try PostgresDatabase(url: url, logger: TestDatabase.logger) }
            #expect(error?.description.contains(named) == true, "\(suffix): \(error?.description ?? "")")
        }
        let sized = try PostgresDatabase(url: "postgres://postgres:secret@127.0.0.1:5432/tessera?pool_max_conns=40&prepare=on", logger: TestDatabase.logger)
        #expect(sized.maximumConnections == 40)
        let standard = try PostgresDatabase(url: "postgres://postgres:secret@127.0.0.1:5432/tessera", logger: TestDatabase.logger)
        #expect(standard.maximumConnections == 16)
    }
}
