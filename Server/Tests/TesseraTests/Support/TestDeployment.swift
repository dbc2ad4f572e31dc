import Foundation
import Logging
@testable import TesseraServer

/// A deployment on disk (SQLite and master key in a new temporary data directory), made the way
/// `tessera serve` makes one, for the CLI's admin commands, which never create one themselves.
enum TestDeployment {
    /// Creates it and returns its data directory; the caller removes it.
    static func create() async throws -> String {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-deployment-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        let runtime = try await TesseraRuntime.bootstrap(configuration: configuration, logger: LiveServer.logger, runsNodes: false)
        await runtime.shutdown()
        return configuration.dataDirectory
    }
}
