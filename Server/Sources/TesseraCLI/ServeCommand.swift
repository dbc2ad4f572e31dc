import ArgumentParser
import Configuration
import Foundation
import Hummingbird
import Logging
import NIOCore
import TesseraServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Tessera server (zero configuration: a development deployment in ./.tessera).",
        discussion: ConfigurationHelp.section
    )

    @Option(help: "Address to listen on.")
    var host: String?

    @Option(help: "Port to listen on.")
    var port: Int?

    @OptionGroup var options: ServerOptions

    func run() async throws {
        MallocTuning.apply(environment: ProcessInfo.processInfo.environment)
        var overrides: [String: ConfigContent] = [:]
        if let host { overrides["host"] = .string(host) }
        if let port { overrides["port"] = .int(port) }
        let configuration = try await options.configuration(overrides: overrides)
        if configuration.logFormat == .json {
            // Once per process, before the first logger is made: every line of this process is one JSON object.
            LoggingSystem.bootstrap { label in JSONLogHandler.standardError(label: label, metadataProvider: nil) }
        }
        let logger = makeLogger(level: configuration.logLevel)
        // Nothing (data directory, master key, database) is created for a server that cannot listen.
        try await ListenAddressCheck.check(host: configuration.host, port: configuration.port)
        if let metrics = configuration.metricsListen {
            try await ListenAddressCheck.check(host: metrics.host, port: metrics.port)
            logger.notice("metrics listener: GET http://\(metrics.host):\(metrics.port)/metrics", metadata: ["token": .string(configuration.metricsToken == nil ? "none" : "required")])
        }
        let launcher = ChildNodeLauncher(
            executable: ChildNodeLauncher.currentExecutable(), logLevel: configuration.logLevel, logFormat: configuration.logFormat
        )
        let runtime = try await TesseraRuntime.bootstrap(configuration: configuration, logger: logger, nodeLauncher: launcher)
        if let first = runtime.firstStart {
            printFirstStart(first, configuration: configuration)
        }
        let fileChannels = [("e-mail", configuration.emailDelivery == .file, "smtp.*"), ("SMS", configuration.smsDelivery == .file, "sms.*")]
            .filter(\.1)
        if !fileChannels.isEmpty {
            logger.warning(
                "development file outbox in use for \(fileChannels.map(\.0).joined(separator: " and ")): codes are written to \(configuration.fileOutboxPath) (read them with `tessera outbox`); configure \(fileChannels.map(\.2).joined(separator: " and ")) for real delivery"
            )
        }
        let app = try runtime.makeApplication()
        let signals = ShutdownSignalLog(logger: logger)
        defer { signals.cancel() }
        do {
            try await app.runService()
        } catch {
            await runtime.shutdown()
            if error is IOError { throw ListenAddressCheck.failure(host: configuration.host, port: configuration.port, error) }
            throw error
        }
        await runtime.shutdown()
        logger.notice("stopped")
    }

    private func printFirstStart(_ first: TesseraRuntime.FirstStart, configuration: ServerConfiguration) {
        var lines = ["", "Tessera first start — shown once, keep these safe:"]
        if let token = first.adminToken, !token.isEmpty {
            lines.append("  admin token:    \(token)")
        }
        if let demo = first.demoClient {
            lines.append("  demo client:    \(demo.client.name)")
            lines.append("    client key:   \(demo.client.clientKey)")
            lines.append("    client secret:\(" " + demo.clientSecret)")
            lines.append("    bundle id:    \(demo.client.bundleIds.joined(separator: ", "))")
        }
        lines.append("  data directory: \(configuration.dataDirectory)")
        if configuration.embeddedNodes > 0 {
            lines.append("  embedded nodes: \(configuration.embeddedNodesDirectory) (child processes; development only)")
        }
        lines.append("")
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

/// Logs `shutting down (SIGTERM)` (or `SIGINT`) when the signal that ends `tessera serve` arrives;
/// the service group, which traps the same signals, does the graceful shutdown.
struct ShutdownSignalLog {
    private let sources: [any DispatchSourceSignal]

    init(logger: Logger) {
        sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            // As the service group does: the signal is delivered to the dispatch sources, not acted on.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { logger.notice("shutting down (\(name))") }
            source.resume()
            return source
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}
