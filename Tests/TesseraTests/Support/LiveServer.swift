import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import TesseraServer

/// A Tessera server on a real loopback socket (in-memory SQLite, file outbox, courier running),
/// with one client, for the SDK and CLI tests.
enum LiveServer {
    static let logger: Logger = {
        var logger = Logger(label: "sdk-test")
        logger.logLevel = .warning
        return logger
    }()

    static func run(
        bundleId: String, _ body: @escaping @Sendable (TesseraRuntime, Client, URL) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-sdk-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        configuration.courierPollInterval = .milliseconds(100)
        let runtime = try await TesseraRuntime.bootstrap(
            configuration: configuration, database: try await SQLiteDatabase.open(path: nil, logger: logger), logger: logger
        )
        let client = try await runtime.clients.create(name: "SDK test", bundleIds: [bundleId]).client
        let app = Application(
            router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), services: [runtime.courier],
            logger: logger
        )
        do {
            try await app.test(.live) { http in
                try await body(runtime, client, URL(string: "http://127.0.0.1:\(http.port!)")!)
            }
        } catch {
            await runtime.shutdown()
            throw error
        }
        await runtime.shutdown()
        try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
    }

    /// The newest code the file outbox holds for `target`.
    static func latestCode(_ runtime: TesseraRuntime, to target: String) async throws -> String {
        await runtime.courier.drain()
        guard let entry = try FileOutboxSender.read(path: runtime.configuration.fileOutboxPath).last(where: { $0.to == target }),
              let match = entry.body.firstMatch(of: /\b(\d{6})\b/)
        else { throw ConfigurationError("no code for \(target)") }
        return String(match.1)
    }
}
