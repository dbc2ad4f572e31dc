import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
@testable import TesseraNode
import TesseraTestSupport
import TesseraServerTestSupport

/// How nodes join a running deployment: a node added by another process (the CLI) gets every
/// device, and embedded nodes belong to one instance.
@Suite("Node registration")
struct NodeRegistrationTests {
    /// A `tessera node` served over loopback HTTP in this process.
    static func withNode(serverKey: String, _ body: @Sendable (NodeServer, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let node = try await NodeServer.open(
            configuration: .init(dataDirectory: directory, host: "127.0.0.1", port: 0, serverKey: serverKey), logger: TestDatabase.logger
        )
        let app = Application(router: node.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
        try await app.test(.live) { http in
            guard let port = http.port else { throw ConfigurationError("no port") }
            try await body(node, "http://127.0.0.1:\(port)")
        }
    }

    @Test("a node added by another process while the server runs receives every device, and the listing counts what is pending", arguments: TestDatabase.kinds)
    func nodeAddedElsewhereGetsEverything(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let client = try await runtime.makeTestClient()
            let first = try await SignUpFixtures.signUp(runtime, client, "before")
            // The server has looked at its nodes (none) just now, as a running server does.
            _ = try await runtime.nodes.current()
            try await Self.withNode(serverKey: runtime.nodeAdmin.serverKey) { node, url in
                // `tessera admin node add` is another process: its own directory over the same database.
                let cli = NodeAdminService(
                    repository: SQLNodeRepository(database: runtime.database),
                    directory: NodeDirectory(
                        repository: SQLNodeRepository(database: runtime.database), httpClient: .shared, signingKey: runtime.keys.nodeControlKey, timeout: .seconds(10),
                        clock: manual.clock
                    ),
                    clock: manual.clock
                )
                let added = try await cli.add(url: url, publicKey: node.publicKey, name: "n1")
                #expect(try await runtime.nodeAdmin.list().first { $0.nodeId == added.nodeId }?.pendingDevices == 1)
                // A sign-up a moment later: the server delivers to the node it had not loaded yet (it
                // looks the node up again, at most once a second).
                manual.advance(by: .seconds(2))
                let second = try await SignUpFixtures.signUp(runtime, client, "after")
                try await runtime.nodeSync.deliverDue()
                let info = try await node.service.info
                #expect(info.devices == 2)
                let listed = try #require(try await runtime.nodeAdmin.list().first { $0.nodeId == added.nodeId })
                #expect(listed.pendingDevices == 0 && listed.lastError == nil, "\(listed)")
                let receipts = try await runtime.database.withSQL { sql in
                    try await sql.raw("SELECT device_id FROM node_receipts WHERE node_id = \(bind: added.nodeId)").all()
                        .map { try $0.decode(column: "device_id", as: String.self) }
                }
                #expect(Set(receipts) == [first, second])

                // What a race between an add and a sign-up can leave out (no queued change, no
                // receipt) the reconciliation queues again and the node receives.
                try await runtime.database.withSQL { sql in
                    try await sql.raw("DELETE FROM node_receipts WHERE device_id = \(bind: first)").run()
                }
                try await runtime.nodeSync.reconcile()
                #expect(try await runtime.nodeAdmin.list().first { $0.nodeId == added.nodeId }?.pendingDevices == 1)
                try await runtime.nodeSync.deliverDue()
                #expect(try await runtime.nodeAdmin.list().first { $0.nodeId == added.nodeId }?.pendingDevices == 0)
            }
        }
    }

    @Test("the reconciliation queues each missing delivery once, for enabled nodes only, and drops a disabled node's queue", arguments: TestDatabase.kinds)
    func reconciliationQueuesMissingAndDropsDisabled(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let client = try await runtime.makeTestClient()
            var signedUp: [String] = []
            for index in 0..<3 { signedUp.append(try await SignUpFixtures.signUp(runtime, client, "reconcile\(index)")) }
            let devices = signedUp
            let now = WallClock.system.now()
            try await runtime.database.withSQL { sql in
                for (id, enabled) in [("nd_on", 1), ("nd_off", 0)] {
                    try await sql.raw(
                        """
                        INSERT INTO nodes (id, name, url, public_key, kind, enabled, created_at)
                        VALUES (\(bind: id), \(bind: id), 'http://127.0.0.1:9', 'AAAA', 'remote', \(bind: enabled), \(bind: now))
                        """
                    ).run()
                }
                for device in devices {
                    try await sql.raw(
                        "INSERT INTO node_sync (node_id, device_id, attempts, next_attempt_at, last_error) VALUES ('nd_off', \(bind: device), 0, \(bind: now), '')"
                    ).run()
                }
            }
            func queued() async throws -> [String: Set<String>] {
                try await runtime.database.withSQL { sql in
                    try await sql.raw("SELECT node_id, device_id FROM node_sync").all().reduce(into: [:]) { queue, row in
                        queue[try row.decode(column: "node_id", as: String.self), default: []].insert(try row.decode(column: "device_id", as: String.self))
                    }
                }
            }
            let repository = SQLNodeRepository(database: runtime.database)
            #expect(try await repository.reconcile(now: now) == 3)
            #expect(try await queued() == ["nd_on": Set(devices)])
            #expect(try await repository.reconcile(now: now) == 0)
            #expect(try await queued() == ["nd_on": Set(devices)])
        }
    }

    /// A second database handle on the same storage: an SQLite file or a PostgreSQL database.
    static func sharedStorage(_ kind: TestDatabase) async throws -> (open: @Sendable () async throws -> any Database, cleanup: @Sendable () async -> Void) {
        switch kind {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString).sqlite").path
            return ({ try await SQLiteDatabase.open(path: path, logger: TestDatabase.logger) }, {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            })
        case .postgres:
            let url = try await TestDatabase.freshPostgresURL()
            return ({ try await PostgresDatabase.open(url: url, logger: TestDatabase.logger) }, { await TestDatabase.drop(url) })
        }
    }

    @Test("an embedded node an older version kept in <dataDir>/nodes/ moves out of the data directory and keeps its key")
    func embeddedNodeMovesOutOfDataDirectory() async throws {
        var old: (nodeId: String, publicKey: String)?
        try await withTestRuntime(.sqlite, configure: { configuration in
            old = try? NodeServer.identity(dataDirectory: configuration.dataDirectory + "/nodes/embedded-1")
        }) { runtime in
            let moved = try #require(old)
            #expect(runtime.embeddedNodes.first?.nodeId == moved.nodeId)
            #expect(!FileManager.default.fileExists(atPath: runtime.configuration.dataDirectory + "/nodes/embedded-1"))
            #expect(FileManager.default.fileExists(atPath: runtime.configuration.embeddedNodesDirectory + "/embedded-1/node.key"))
        }
    }

    /// Instances sharing a database share its master key.
    static let sharedMasterKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()

    static let fixedInstant = WallClock.system.now()
    static let fixedClock = WallClock { fixedInstant }

    static func configuration() -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.masterKey = sharedMasterKey
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("inst-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        return configuration
    }

    @Test("a second instance with embedded nodes on a shared database is refused while the first runs, and leaves the first's nodes alone", arguments: TestDatabase.kinds)
    func embeddedNodesBelongToOneInstance(kind: TestDatabase) async throws {
        let storage = try await Self.sharedStorage(kind)
        // One fixed instant for both starts: however slow the machine, the first's heartbeat is fresh.
        let first = try await TesseraRuntime.bootstrap(
            configuration: Self.configuration(), database: try await storage.open(), logger: TestDatabase.logger, clock: Self.fixedClock,
                nodeLauncher: InProcessNodeLauncher()
        )
        do {
            try await Self.checkRefusalAndTakeOver(first, storage)
        } catch {
            await first.shutdown()
            await storage.cleanup()
            throw error
        }
        await first.shutdown()
        await storage.cleanup()
    }

    static func checkRefusalAndTakeOver(
        _ first: TesseraRuntime, _ storage: (open: @Sendable () async throws -> any Database, cleanup: @Sendable () async -> Void)
    ) async throws {
        let firstIds = first.embeddedNodes.map(\.nodeId)
        #expect(firstIds.count == 3)

        let error = await #expect(throws: (any Error).self) {
            let unexpected = try await TesseraRuntime.bootstrap(
                configuration: Self.configuration(), database: try await storage.open(), logger: TestDatabase.logger, clock: Self.fixedClock,
                nodeLauncher: InProcessNodeLauncher()
            )
            await unexpected.shutdown()
        }
        #expect(String(describing: error).contains("--nodes-embedded 0"), "\(String(describing: error))")
        let enabled = try await first.nodeAdmin.list().filter(\.enabled).map(\.nodeId)
        #expect(Set(enabled) == Set(firstIds))
        #expect(try await first.nodes.current().count == 3)

        // An instance whose heartbeat is old (it died without stopping) is taken over.
        let later = WallClock { Self.fixedInstant + NodeDirectory.embeddedLiveness + 1_000 }
        let second = try await TesseraRuntime.bootstrap(
            configuration: Self.configuration(), database: try await storage.open(), logger: TestDatabase.logger, clock: later, nodeLauncher: InProcessNodeLauncher()
        )
        let secondIds = second.embeddedNodes.map(\.nodeId)
        #expect(Set(try await second.nodeAdmin.list().filter(\.enabled).map(\.nodeId)) == Set(secondIds))
        await second.shutdown()

        // One that stopped cleanly can be followed at once.
        let third = try await TesseraRuntime.bootstrap(configuration: Self.configuration(), database: try await storage.open(), logger: TestDatabase.logger, nodeLauncher: InProcessNodeLauncher())
        #expect(third.embeddedNodes.count == 3)
        await third.shutdown()
    }
}

