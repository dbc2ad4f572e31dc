import Foundation
import SQLKit
import Testing
@testable import TesseraServer

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
