import Foundation
import SQLKit
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

@Suite("Storage")
struct StorageTests {
    @Test("migrations are idempotent", arguments: TestDatabase.kinds)
    func migrationsIdempotent(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            // bootstrap already migrated; a second run applies nothing and keeps data.
            _ = try await runtime.makeTestClient()
            let applied = try await Migrator.migrate(runtime.database)
            #expect(applied.isEmpty)
            #expect(try await runtime.clients.list().count == 1)
            let versions = try await runtime.database.withSQL { sql in
                try await sql.raw("SELECT version FROM schema_migrations").all().map { try $0.decode(column: "version", as: Int.self) }
            }
            #expect(versions == Migrator.all.map(\.version))
        }
    }

    @Test("SQLite file: reads see every commit; scans run on the reader connections while a write transaction is open; neither can write")
    func sqliteReaders() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("readers-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try await SQLiteDatabase.open(path: path, readers: 2, logger: TestDatabase.logger)
        try await database.withSQL { try await $0.raw("CREATE TABLE t (n INTEGER)").run() }
        for n in 1...20 {
            try await database.withSQL { try await $0.raw("INSERT INTO t (n) VALUES (\(bind: n))").run() }
            let count = try await database.read { try await $0.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) }
            #expect(count == n)
        }
        // A reader answers while the writer holds an open transaction, and sees only what was committed.
        let (writer, release) = await database.holdWriter(inserting: 99)
        let during = try await database.scan { try await $0.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) }
        release.yield()
        #expect(during == 20)
        try await writer.value
        let after = try await database.read { try await $0.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) }
        #expect(after == 21)
        #expect(try await database.scan { try await $0.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) } == 21)
        // Reads and scans refuse writes (a read runs on the writer connection: the statement is refused before it runs).
        await #expect(throws: (any Error).self) { try await database.read { try await $0.raw("INSERT INTO t (n) VALUES (1)").run() } }
        await #expect(throws: (any Error).self) { try await database.scan { try await $0.raw("INSERT INTO t (n) VALUES (1)").run() } }
        await #expect(throws: (any Error).self) { try await database.read { try await $0.raw("DELETE FROM t").run() } }
        #expect(try await database.read { try await $0.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) } == 21)
        await database.close()
        // Dropped without close (a failed start): its connections close in the background, no crash.
        _ = try await SQLiteDatabase.open(path: path, readers: 2, logger: TestDatabase.logger)
    }

    @Test("client keys are unique by constraint", arguments: TestDatabase.kinds)
    func clientKeyUnique(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let repository = SQLClientRepository(database: runtime.database)
            let client = Client(id: "cl_1", clientKey: "tck_same", name: "A", bundleIds: ["a.b"], enabled: true, createdAt: 1)
            try await repository.insert(client, secretHash: "h")
            var twin = client
            twin.id = "cl_2"
            await #expect(throws: (any Error).self) { try await repository.insert(twin, secretHash: "h") }
            #expect(try await repository.list().count == 1)
        }
    }

    @Test("rate counters count every concurrent increment", arguments: TestDatabase.kinds)
    func rateCountersConcurrent(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let database = runtime.database
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await database.transaction { sql in
                            try await RateCounters().increment("k", now: 1_000_000, window: .seconds(3600), in: sql)
                        }
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts.sorted() == Array(1...40))
        }
    }

    @Test("a shared key (an app's, an address's): no concurrent count is lost, each one counts at least itself and the committed ones, the next sees them all; spread over rows on PostgreSQL only", arguments: TestDatabase.kinds)
    func sharedCounterSpread(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let database = runtime.database
            let counts = try await withThrowingTaskGroup(of: [String: Int].self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await database.transaction { sql in
                            try await RateCounters().increment(["own|\(index)"], shared: ["app"], now: 1_000_000, window: .seconds(3600), in: sql)
                        }
                    }
                }
                return try await group.reduce(into: [[String: Int]]()) { $0.append($1) }
            }
            #expect(counts.allSatisfy { $0.count == 2 && $0.values.allSatisfy { (1...40).contains($0) } })
            #expect(counts.map { $0["app"] ?? 0 }.max() ?? 0 >= 1)
            // Sequentially, each count is exact: every committed increment is in the sum.
            let next = try await database.withSQL { sql in
                try await RateCounters().increment("app", shared: true, now: 1_000_000, window: .seconds(3600), in: sql)
            }
            #expect(next == 41)
            let again = try await database.withSQL { sql in
                try await RateCounters().increment("app", shared: true, now: 3_599_999, window: .seconds(3600), in: sql)
            }
            #expect(again == 42, "the same window")
            let rows = try await database.read { sql in
                try await sql.raw("SELECT count(*) AS n FROM rate_counters WHERE counter_key LIKE 'app%'").first()?.decode(column: "n", as: Int.self) ?? 0
            }
            if kind == .postgres {
                #expect(rows > 1 && rows <= RateCounters.shards, "spread over rows: \(rows)")
            } else {
                #expect(rows == 1)
            }
            // A key counted before the spread (its own row) still counts.
            _ = try await database.withSQL { sql in try await RateCounters().increment("old", now: 1_000_000, window: .seconds(3600), in: sql) }
            let old = try await database.withSQL { sql in
                try await RateCounters().increment("old", shared: true, now: 1_000_000, window: .seconds(3600), in: sql)
            }
            #expect(old == 2)
        }
    }

    @Test("the resend gate lets exactly one of many concurrent sends through", arguments: TestDatabase.kinds)
    func cooldownGateAtomic(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let database = runtime.database
            let passed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        try await database.transaction { sql in
                            try await SQLOTPRepository().passCooldownGate("gate", now: 5_000, cooldown: .seconds(30), in: sql) == nil
                        }
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(passed == 1)
            // After the cooldown the gate opens again, once.
            let reopened = try await database.transaction { sql in
                try await SQLOTPRepository().passCooldownGate("gate", now: 35_000, cooldown: .seconds(30), in: sql)
            }
            #expect(reopened == nil)
        }
    }
}
