import Foundation
import SQLKit
import Testing
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// Several instances started at once on one empty database (the way replicas start), and what a
/// start that fails on PostgreSQL prints.
@Suite("Starting together")
struct StartupRaceTests {
    @Test("three instances starting at once on an empty database all start: one schema, one master key, one admin token", arguments: TestDatabase.kinds)
    func replicasStartTogether(kind: TestDatabase) async throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("race-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        // SQLite: the zero-configuration deployment, three processes on one data directory. PostgreSQL:
        // replicas on three hosts (three data directories) sharing one database and one master key.
        if kind == .postgres {
            configuration.databaseURL = try await TestDatabase.freshPostgresURL()
            configuration.masterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        }
        let settings = configuration
        let runtimes = try await withThrowingTaskGroup(of: TesseraRuntime.self) { group in
            for index in 0..<3 {
                var own = settings
                if kind == .postgres { own.dataDirectory += "/host-\(index)" }
                group.addTask { [own] in try await TesseraRuntime.bootstrap(configuration: own, logger: TestDatabase.logger, runsNodes: false) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runtimes.count == 3)
        // Exactly one of them made the deployment (admin token, demo client); all share its keys.
        #expect(runtimes.filter { $0.firstStart != nil }.count == 1)
        #expect(try await runtimes[0].clients.list().count == 1)
        let hashes = Set(runtimes.map { $0.keys.hasher.hash("probe", domain: "test") })
        #expect(hashes.count == 1)
        let versions = try await runtimes[0].database.withSQL { sql in
            try await sql.raw("SELECT version FROM schema_migrations ORDER BY version").all().map { try $0.decode(column: "version", as: Int.self) }
        }
        #expect(versions == Migrator.all.map(\.version))
        for runtime in runtimes { await runtime.shutdown() }
        // A restart reads the one master key on disk and opens the secrets sealed with it.
        let again = try await TesseraRuntime.bootstrap(configuration: settings, logger: TestDatabase.logger, runsNodes: false)
        #expect(again.keys.hasher.hash("probe", domain: "test") == hashes.first)
        await again.shutdown()
        if let url = settings.databaseURL { await TestDatabase.drop(url) }
    }

    @Test("an instance without a master key on a database another instance set up is refused before it writes a key of its own")
    func noStrayMasterKey() async throws {
        _ = try TestRequirements.postgresURL()   // two data directories on one database: PostgreSQL
        let url = try await TestDatabase.freshPostgresURL()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stray-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var first = ServerConfiguration()
        first.databaseURL = url
        first.dataDirectory = root + "/first"
        let runtime = try await TesseraRuntime.bootstrap(configuration: first, logger: TestDatabase.logger, runsNodes: false)
        await runtime.shutdown()

        var second = first
        second.dataDirectory = root + "/second"
        let strayKey = second.dataDirectory + "/master.key"
        do {
            _ = try await TesseraRuntime.bootstrap(configuration: second, logger: TestDatabase.logger, runsNodes: false)
            Issue.record("the second instance started with a master key of its own")
        } catch let error as ConfigurationError {
            #expect(String(describing: error).contains("already holds server secrets"), "\(error)")
            #expect(String(describing: error).contains(strayKey), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: strayKey), "no stray master.key")
        // Given the first instance's key, the same second instance starts and opens the same secrets.
        try FileManager.default.copyItem(atPath: first.dataDirectory + "/master.key", toPath: strayKey)
        let again = try await TesseraRuntime.bootstrap(configuration: second, logger: TestDatabase.logger, runsNodes: false)
        #expect(again.keys.hasher.hash("probe", domain: "test") == runtime.keys.hasher.hash("probe", domain: "test"))
        await again.shutdown()
        await TestDatabase.drop(url)
    }

    @Test("migrations started at the same instant on one empty database by six connections pools all succeed, once", arguments: TestDatabase.kinds)
    func migrationsRace(kind: TestDatabase) async throws {
        guard kind == .postgres else { return }  // SQLite instances are serialised by the data directory's startup lock
        let url = try await TestDatabase.freshPostgresURL()
        var pools: [PostgresDatabase] = []
        for _ in 0..<6 { pools.append(try await PostgresDatabase.open(url: url, logger: TestDatabase.logger)) }
        let opened = pools
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for pool in opened { group.addTask { try await Migrator.migrate(pool) } }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(applied.sorted() == Migrator.all.map(\.version))
        for pool in opened { await pool.close() }
        await TestDatabase.drop(url)
    }

    @Test("a start that fails on PostgreSQL names the server, the database, the SQLSTATE and PostgreSQL's message")
    func postgresFailureSaysWhy() async throws {
        guard TestDatabase.kinds.contains(.postgres) else { return }
        let url = try await TestDatabase.freshPostgresURL()
        let squatter = try await PostgresDatabase.open(url: url, logger: TestDatabase.logger)
        // A table of the first migration's, already there with another shape: migration 1 fails.
        try await squatter.withSQL { try await $0.raw("CREATE TABLE server_secrets (other INTEGER)").run() }
        await squatter.close()
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        configuration.databaseURL = url
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await TesseraRuntime.bootstrap(configuration: configuration, logger: TestDatabase.logger, runsNodes: false)
        }
        let text = error?.description ?? ""
        let components = try #require(URLComponents(string: url))
        #expect(text.contains("SQLSTATE 42P07"), "\(text)")
        #expect(text.contains("server_secrets"), "\(text)")
        #expect(text.contains("\(components.host ?? "?"):\(components.port ?? 0)\(components.path)"), "\(text)")
        #expect(!text.contains("Generic description"), "\(text)")
        #expect(!text.contains(url), "the URL carries the password: \(text)")
        await TestDatabase.drop(url)
    }
}
