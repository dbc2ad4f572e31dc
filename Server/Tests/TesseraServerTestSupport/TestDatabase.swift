import Foundation
import Logging
import SQLKit
import Testing
@testable import TesseraServer
import TesseraTestSupport

/// The engines the storage-facing suites run on: both, always (`scripts/test.sh` starts a
/// throw-away PostgreSQL and sets `TESSERA_TEST_DATABASE_URL`; without it the PostgreSQL cases fail
/// naming it). Only `scripts/test.sh --quick` leaves PostgreSQL out, and says so.
package enum TestDatabase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    package var testDescription: String { rawValue }

    package static let postgresURL = ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"]
    package static var kinds: [TestDatabase] { TestRequirements.quick && postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    package static let logger: Logger = {
        var logger = Logger(label: "tessera-test")
        logger.logLevel = .warning
        return logger
    }()

    /// Opens a fresh, empty database of this kind: in-memory SQLite, or a new PostgreSQL database.
    /// Call `drop` after closing it: it removes the PostgreSQL database (SQLite's goes with its connection).
    package func open() async throws -> (database: any Database, drop: @Sendable () async -> Void) {
        switch self {
        case .sqlite:
            return (try await SQLiteDatabase.open(path: nil, logger: Self.logger), {})
        case .postgres:
            let url = try await Self.freshPostgresURL()
            return (try await PostgresDatabase.open(url: url, logger: Self.logger), { await Self.drop(url) })
        }
    }

    /// Removes a database made by ``freshPostgresURL()`` (``TestPostgres/drop(_:logger:)``).
    package static func drop(_ url: String) async { await TestPostgres.drop(url, logger: logger) }

    /// The URL of a new, empty PostgreSQL database on the test server (``TestPostgres/freshURL(logger:)``).
    package static func freshPostgresURL() async throws -> String { try await TestPostgres.freshURL(logger: logger) }
}

/// A runtime on a fresh database and a temporary data directory, closed afterwards; `random` is the runtime's
/// randomness (a ``ScriptedRandom`` for a test that must know a challenge in advance).
package func withTestRuntime<T>(
    _ kind: TestDatabase, clock: WallClock = .system, random: RandomSource = .system, configure: (inout ServerConfiguration) -> Void = { _ in },
    wrapDatabase: (any Database) -> any Database = { $0 }, nodeLauncher: InProcessNodeLauncher = InProcessNodeLauncher(),
    _ body: (TesseraRuntime) async throws -> T
) async throws -> T {
    var configuration = ServerConfiguration()
    configuration.dataDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("tessera-test-\(UUID().uuidString)").path
    configuration.createDemoClient = false
    // A node call may take seconds on a busy machine; tests that need a short timeout set one.
    configuration.nodeTimeout = .seconds(60)
    configure(&configuration)
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    let (database, drop) = try await kind.open()
    let runtime: TesseraRuntime
    do {
        runtime = try await TesseraRuntime.bootstrap(
            configuration: configuration, database: wrapDatabase(database), logger: TestDatabase.logger, clock: clock, random: random,
            nodeLauncher: nodeLauncher
        )
    } catch {
        await drop()
        throw error
    }
    do {
        let value = try await body(runtime)
        await runtime.shutdown()
        await drop()
        try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
        try? FileManager.default.removeItem(atPath: configuration.embeddedNodesDirectory)
        return value
    } catch {
        await runtime.shutdown()
        await drop()
        throw error
    }
}

extension TesseraRuntime {
    /// Messages the file outbox has received so far.
    package func fileOutbox() throws -> [FileOutboxSender.Entry] {
        try FileOutboxSender.read(path: configuration.fileOutboxPath)
    }

    /// Delivers what is due and returns the newest code sent to `target`.
    package func deliverAndReadCode(to target: String) async throws -> String {
        await courier.drain()
        guard let entry = try fileOutbox().last(where: { $0.to == target }),
              let match = entry.body.firstMatch(of: /\b(\d{6})\b/)
        else { throw ConfigurationError("no code delivered to \(target)") }
        return String(match.1)
    }

    package func makeTestClient(bundle: String = "com.example.app") async throws -> Client {
        try await clients.create(name: "Test app", bundleIds: [bundle]).client
    }
}

import HTTPTypes
import HummingbirdTesting
import NIOCore

extension TestClientProtocol {
    /// Executes a request and hands the answer to a throwing check.
    package func run(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        _ check: (TestResponse) throws -> Void
    ) async throws {
        try check(try await executeRequest(uri: uri, method: method, headers: headers, body: body))
    }
}
