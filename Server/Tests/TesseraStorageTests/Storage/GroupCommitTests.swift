import Foundation
import SQLKit
import Testing
@testable import TesseraHTTPKit
@testable import TesseraServer
import TesseraTestSupport
import TesseraServerTestSupport

/// SQLite's writer batches the writes that queue while a batch runs (``GroupCommit``): one
/// transaction for all of them, each in its own savepoint, each answered after the COMMIT.
@Suite("Storage: group commit")
struct GroupCommitTests {
    /// A file database with a table `t (n INTEGER UNIQUE)`, removed afterwards.
    private func withDatabase(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        try await withDatabaseFile { path in
            let database = try await openWithTable(path, readers: 2)
            try await body(database)
            await database.close()
        }
    }

    /// A path for a database file; the file and its WAL and shared-memory files are removed afterwards.
    private func withDatabaseFile(_ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("group-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try await body(path)
    }

    private func openWithTable(_ path: String, readers: Int) async throws -> SQLiteDatabase {
        let database = try await SQLiteDatabase.open(path: path, readers: readers, logger: TestDatabase.logger)
        try await database.withSQL { try await $0.raw("CREATE TABLE t (n INTEGER UNIQUE)").run() }
        return database
    }

    /// The values as a reader connection beside the writer sees them (``SQLiteDatabase/scan(_:)``).
    private func count(_ database: SQLiteDatabase) async throws -> [Int] {
        try await database.scan { try await $0.raw("SELECT n FROM t ORDER BY n").all().map { try $0.decode(column: "n", as: Int.self) } }
    }

    @Test("writes queued behind a running batch commit together in the next one; a write that throws is rolled back alone")
    func queuedWritesShareOneBatch() async throws {
        try await withDatabase { database in
            let before = database.groupCommitStatistics.batches
            // The first write holds the writer until released, so the next ten queue behind it.
            let (holder, release) = await database.holdWriter(inserting: 0)
            let writes = (1...10).map { n in
                Task { () throws -> Int in
                    try await database.withSQL { sql in
                        try await sql.raw("INSERT INTO t (n) VALUES (\(bind: n))").run()
                        if n == 5 { throw Refused() }   // its insert must not survive
                        return n
                    }
                }
            }
            let queued = await eventually { database.groupCommitStatistics.queued == 10 }
            #expect(queued, "the ten writes did not queue behind the running batch")
            #expect(try await count(database) == [], "nothing is visible before a COMMIT")
            release.yield()
            try await holder.value
            var answered: [Int] = []
            for write in writes {
                do { answered.append(try await write.value) } catch is Refused {}
            }
            #expect(answered == [1, 2, 3, 4, 6, 7, 8, 9, 10])
            #expect(try await count(database) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10])
            // Two batches: the holder alone, then the ten together.
            #expect(database.groupCommitStatistics.batches - before == 2)
        }
    }

    @Test("a constraint failure inside a batch fails only its write; every answered write is committed and visible to the readers")
    func constraintFailureInBatch() async throws {
        try await withDatabase { database in
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for n in 0..<64 {
                    // Every value twice: one insert of each pair wins, the other breaks UNIQUE.
                    group.addTask {
                        let ok = (try? await database.withSQL { try await $0.raw("INSERT INTO t (n) VALUES (\(bind: n / 2))").run() }) != nil
                        return (n / 2, ok)
                    }
                }
                var outcomes: [(Int, Bool)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let accepted = outcomes.filter(\.1).map(\.0).sorted()
            #expect(accepted == Array(0..<32), "each value accepted exactly once")
            let rows = try await count(database)
            #expect(rows == Array(0..<32))
        }
    }

    @Test("short reads queued behind a running batch run in the next one, in order: each sees the writes queued before it, not a write rolled back")
    func readsRunInTheBatch() async throws {
        try await withDatabase { database in
            let (holder, release) = await database.holdWriter(inserting: 0)
            func values() async throws -> [Int] {
                try await database.read { try await $0.raw("SELECT n FROM t ORDER BY n").all().map { try $0.decode(column: "n", as: Int.self) } }
            }
            // Queued one after another: a write, a read, a write that throws, a read.
            let first = Task { try await database.withSQL { try await $0.raw("INSERT INTO t (n) VALUES (1)").run() } }
            _ = await eventually { database.groupCommitStatistics.queued == 1 }
            let readAfterFirst = Task { try await values() }
            _ = await eventually { database.groupCommitStatistics.queued == 2 }
            let refused = Task {
                try await database.withSQL { sql in
                    try await sql.raw("INSERT INTO t (n) VALUES (2)").run()
                    throw Refused()
                }
            }
            _ = await eventually { database.groupCommitStatistics.queued == 3 }
            let readAfterRefused = Task { try await values() }
            let queued = await eventually { database.groupCommitStatistics.queued == 4 }
            #expect(queued, "the four jobs did not queue behind the running batch")
            release.yield()
            try await holder.value
            try await first.value
            await #expect(throws: Refused.self) { try await refused.value }
            #expect(try await readAfterFirst.value == [0, 1])
            #expect(try await readAfterRefused.value == [0, 1])
            #expect(try await count(database) == [0, 1])
        }
    }

    @Test("closing waits for the writes queued before it, which are committed; a write after the close is refused")
    func closeCommitsQueuedWrites() async throws {
        try await withDatabaseFile { path in
            let database = try await openWithTable(path, readers: 1)
            let (holder, release) = await database.holdWriter(inserting: 0)
            let writes = (1...5).map { n in
                Task { try await database.withSQL { try await $0.raw("INSERT INTO t (n) VALUES (\(bind: n))").run() } }
            }
            let queued = await eventually { database.groupCommitStatistics.queued == 5 }
            #expect(queued, "the five writes did not queue behind the running batch")
            let closing = Task { await database.close() }
            let closeBegan = await eventually { database.isClosing }
            #expect(closeBegan)
            release.yield()
            try await holder.value
            await closing.value
            for write in writes { try await write.value }
            await #expect(throws: GroupCommitClosed.self) {
                try await database.withSQL { try await $0.raw("INSERT INTO t (n) VALUES (6)").run() }
            }
            let reopened = try await SQLiteDatabase.open(path: path, readers: 1, logger: TestDatabase.logger)
            #expect(try await count(reopened) == [0, 1, 2, 3, 4, 5])
            await reopened.close()
        }
    }

    @Test("a read that finds nothing running runs in its own task; a write goes to the writer task")
    func readsRunInline() async throws {
        let database = try await SQLiteDatabase.open(path: nil, logger: TestDatabase.logger)
        for _ in 0..<3 { _ = try await database.read { try await $0.raw("SELECT 1 AS one").first() } }
        #expect(!database.groupCommitWriterStarted)
        try await database.withSQL { try await $0.raw("CREATE TABLE t (n INTEGER)").run() }
        #expect(database.groupCommitWriterStarted)
        await database.close()
    }

    private struct Refused: Error {}
}

extension SQLiteDatabase {
    /// A transaction that inserts `n` into `t` and then holds the writer until `release` yields, so
    /// that what is queued meanwhile runs in the next batch. Returns once it holds the writer.
    func holdWriter(inserting n: Int) async -> (holder: Task<Void, any Error>, release: AsyncStream<Void>.Continuation) {
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await transaction { sql in
                try await sql.raw("INSERT INTO t (n) VALUES (\(bind: n))").run()
                signal.yield()
                for await _ in released { break }
            }
        }
        for await _ in entered { break }
        return (holder, release)
    }
}
