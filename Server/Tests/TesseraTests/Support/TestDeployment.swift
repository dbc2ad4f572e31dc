import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import TesseraServer

/// A deployment on disk (SQLite and master key in a new temporary data directory), made the way
/// `tessera serve` makes one, for the CLI's admin commands, which never create one themselves.
enum TestDeployment {
    /// Creates it and returns its data directory; the caller removes it.
    static func create() async throws -> String {
        let configuration = Self.configuration()
        let runtime = try await TesseraRuntime.bootstrap(configuration: configuration, logger: LiveServer.logger, runsNodes: false)
        await runtime.shutdown()
        return configuration.dataDirectory
    }

    /// Serves a new deployment on disk (or the one in `dataDirectory`, whose admin token is
    /// `adminToken`) on a loopback port while `body` runs, as `tessera serve` would, and removes a new
    /// one afterwards. `body` gets the data directory, the arguments that point an admin command at
    /// this server (`--server URL --admin-token T`) and the URL.
    static func serve(
        dataDirectory: String? = nil, adminToken: String? = nil,
        _ body: @escaping @Sendable (_ dataDir: String, _ admin: [String], _ url: URL) async throws -> Void
    ) async throws {
        try await serveRuntime(dataDirectory: dataDirectory, adminToken: adminToken) { runtime, admin, url in
            try await body(runtime.configuration.dataDirectory, admin, url)
        }
    }

    /// ``serve(dataDirectory:adminToken:_:)`` handing `body` the running server's runtime; with
    /// `databaseURL`, the deployment is on that PostgreSQL database.
    static func serveRuntime(
        dataDirectory: String? = nil, adminToken: String? = nil, databaseURL: String? = nil, issuer: String? = nil,
        _ body: @escaping @Sendable (_ runtime: TesseraRuntime, _ admin: [String], _ url: URL) async throws -> Void
    ) async throws {
        var configuration = Self.configuration()
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        configuration.databaseURL = databaseURL
        if let issuer { configuration.issuer = issuer }
        let runtime = try await TesseraRuntime.bootstrap(configuration: configuration, logger: LiveServer.logger, runsNodes: false)
        let token = adminToken ?? runtime.firstStart?.adminToken ?? ""
        let app = Application(
            router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), services: [runtime.courier],
            logger: LiveServer.logger
        )
        do {
            try await app.test(.live) { http in
                let port = try #require(http.port)
                let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
                try await body(runtime, ["--server", url.absoluteString, "--admin-token", token], url)
            }
        } catch {
            await runtime.shutdown()
            if dataDirectory == nil { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
            throw error
        }
        await runtime.shutdown()
        if dataDirectory == nil { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
    }

    private static func configuration() -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-deployment-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        configuration.embeddedNodes = 0
        return configuration
    }
}
