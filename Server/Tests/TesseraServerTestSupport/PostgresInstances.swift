import Foundation
@testable import TesseraServer
import TesseraTestSupport

/// Two server instances (runtimes without verifier nodes or a demo client) on one fresh PostgreSQL database, as two
/// `tessera serve` processes of one deployment: the same master key and `clock` (one database's instances share
/// time), each its own data directory. `configure` adjusts their configuration. Both are shut down and the database
/// dropped after `body`, also when it throws. Fails naming what is missing when no PostgreSQL is configured.
package func withTwoPostgresInstances<T>(
    clock: WallClock = .system, configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (_ first: TesseraRuntime, _ second: TesseraRuntime) async throws -> T
) async throws -> T {
    _ = try TestRequirements.postgresURL()
    let url = try await TestDatabase.freshPostgresURL()
    var configuration = ServerConfiguration()
    configuration.createDemoClient = false
    configuration.embeddedNodes = 0
    configuration.masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()
    configure(&configuration)
    func instance() async throws -> TesseraRuntime {
        var own = configuration
        own.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-instance-\(UUID().uuidString)").path
        return try await TesseraRuntime.bootstrap(
            configuration: own, database: try await PostgresDatabase.open(url: url, logger: TestDatabase.logger), logger: TestDatabase.logger,
            clock: clock, runsNodes: false
        )
    }
    let first = try await instance()
    let second: TesseraRuntime
    do { second = try await instance() } catch {
        await first.shutdown()
        await TestDatabase.drop(url)
        throw error
    }
    do {
        let result = try await body(first, second)
        await first.shutdown()
        await second.shutdown()
        await TestDatabase.drop(url)
        return result
    } catch {
        await first.shutdown()
        await second.shutdown()
        await TestDatabase.drop(url)
        throw error
    }
}
