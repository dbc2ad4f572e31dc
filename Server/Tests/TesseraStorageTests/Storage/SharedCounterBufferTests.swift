import Foundation
import SQLKit
import Testing
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// ``SharedCounterBuffer``: shared rate-limit keys counted in memory per instance and added to the database in
/// batches (PostgreSQL only: on SQLite the counters ignore the buffer).
@Suite("Shared counter buffer")
struct SharedCounterBufferTests {
    private static let window = Duration.seconds(3600)
    private static let now: Int64 = 7_200_000

    /// The key's total over its rows in the database.
    private func stored(_ key: String, in database: any Database) async throws -> Int {
        try await database.read { sql in
            try await sql.raw(
                "SELECT COALESCE(SUM(count), 0) AS n FROM rate_counters WHERE counter_key = \(bind: key) OR counter_key LIKE \(bind: key + "#%")"
            ).first()?.decode(column: "n", as: Int.self) ?? -1
        }
    }

    private func count(_ counters: RateCounters, _ key: String, in database: any Database, now: Int64 = now) async throws -> Int {
        try await database.transaction { sql in
            try await counters.increment([], shared: [key], now: now, window: Self.window, in: sql)[key] ?? -1
        }
    }

    @Test("two instances: each sees its own counts at once and the other's after a flush; every count reaches the database")
    func twoInstances() async throws {
        try await withTestRuntime(.postgres) { runtime async throws in
            let database = runtime.database
            // Flushes only when the test asks (an interval no clock reading reaches).
            let first = SharedCounterBuffer(database: database, flushInterval: .max), second = SharedCounterBuffer(database: database, flushInterval: .max)
            let a = RateCounters(buffer: first), b = RateCounters(buffer: second)
            #expect(try await count(a, "app", in: database) == 1, "the first count of a key is made in the database")
            #expect(try await stored("app", in: database) == 1)
            let concurrent = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<30 { group.addTask { try await count(a, "app", in: database) } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(concurrent.sorted() == Array(2...31), "no count lost or given twice")
            #expect(try await stored("app", in: database) == 1, "the counts stay in memory until a flush")
            #expect(try await count(b, "app", in: database) == 2, "the other instance reads what was flushed, plus its own")
            try await first.flush()
            #expect(try await stored("app", in: database) == 32)
            #expect(try await count(a, "app", in: database) == 33)
            #expect(try await count(b, "app", in: database) == 3, "the other's counts are seen only after its flush")
            try await second.flush()
            #expect(try await count(b, "app", in: database) == 34, "after its own flush: the total of both instances")
            try await first.flush()
            try await second.flush()
            #expect(try await stored("app", in: database) == 35, "every count, of both instances, in the database")
        }
    }

    @Test("a flush is started by the first count past the interval, on the injected clock")
    func flushIfDue() async throws {
        try await withTestRuntime(.postgres) { runtime async throws in
            let database = runtime.database
            let buffer = SharedCounterBuffer(database: database, flushInterval: 100)
            let counters = RateCounters(buffer: buffer)
            #expect(try await count(counters, "ip", in: database) == 1, "counted in the database; the interval starts")
            #expect(try await count(counters, "ip", in: database, now: Self.now + 10) == 2)
            #expect(try await stored("ip", in: database) == 1, "within the interval: not flushed")
            #expect(try await count(counters, "ip", in: database, now: Self.now + 200) == 3)
            // That count was past the interval: it started a flush, which ends by itself.
            let flushed = await eventually { @Sendable () async -> Bool in (try? await stored("ip", in: database)) == 3 }
            #expect(flushed)
        }
    }

    @Test("past its key limit, new keys are counted in the database; a new window starts from the database")
    func keyLimitAndWindows() async throws {
        try await withTestRuntime(.postgres) { runtime async throws in
            let database = runtime.database
            let buffer = SharedCounterBuffer(database: database, flushInterval: .max, maxKeys: 1)
            let counters = RateCounters(buffer: buffer)
            #expect(try await count(counters, "kept", in: database) == 1)
            #expect(try await count(counters, "other", in: database) == 1)
            #expect(try await count(counters, "other", in: database) == 2)
            #expect(try await stored("other", in: database) == 2, "a key past the limit is written at each count")
            #expect(try await count(counters, "kept", in: database) == 2)
            #expect(try await stored("kept", in: database) == 1)
            try await buffer.flush()
            // The next hour: the key's count there starts in the database, at 1.
            #expect(try await count(counters, "kept", in: database, now: Self.now + 3_600_000) == 1)
        }
    }
}
