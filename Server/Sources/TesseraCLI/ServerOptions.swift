import ArgumentParser
import Configuration
import Foundation
import Logging
import TesseraServer

/// Options shared by every command that opens the server's storage. Any other configuration key
/// can be given as a flag too (`--otp-code-lifetime 120`), or as `TESSERA_…` environment variable,
/// or in the JSON file named by `--config`.
struct ServerOptions: ParsableArguments {
    @Option(help: "Data directory (SQLite file, master key, file outbox).")
    var dataDir: String?

    @Option(help: "postgres://user:password@host:port/database instead of SQLite.")
    var databaseUrl: String?

    @Option(help: "JSON configuration file.")
    var config: String?

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var extra: [String] = []

    /// The configuration reader over the overrides, the flags in `extra`, the `TESSERA_…` environment
    /// and the `--config` file, after refusing unknown flags, variables and file keys.
    func reader(overrides: [String: ConfigContent] = [:], reporter: ConfigurationValueCheck? = nil) async throws -> ConfigReader {
        try ConfigurationKeys.checkArguments(extra)
        try ConfigurationKeys.checkEnvironment(ProcessInfo.processInfo.environment)
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        if let dataDir { values[AbsoluteConfigKey(["dataDir"])] = .init(.string(dataDir), isSecret: false) }
        if let databaseUrl { values[AbsoluteConfigKey(["databaseUrl"])] = .init(.string(databaseUrl), isSecret: true) }
        for (key, value) in overrides {
            values[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = .init(value, isSecret: false)
        }
        var providers: [any ConfigProvider] = [
            InMemoryProvider(values: values),
            CommandLineArgumentsProvider(arguments: ["tessera"] + extra),
            EnvironmentVariablesProvider().prefixKeys(with: "tessera"),
        ]
        if let config {
            guard let data = FileManager.default.contents(atPath: config) else { throw ConfigurationError("cannot read the configuration file \(config)") }
            try ConfigurationKeys.checkFile(data, path: config)
            providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(config)))
        }
        return ConfigReader(providers: providers, accessReporter: reporter)
    }

    /// The server configuration; any mistake in it (unknown flag, key or variable, a value that does
    /// not parse or is out of range) is a usage error naming it.
    func configuration(overrides: [String: ConfigContent] = [:]) async throws -> ServerConfiguration {
        do {
            let check = ConfigurationValueCheck()
            let configuration = try ServerConfiguration(reader: try await reader(overrides: overrides, reporter: check))
            try check.check()
            return configuration
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        } catch {
            throw ValidationError("the configuration cannot be read: \(error)")
        }
    }
}

func makeLogger(level: Logger.Level) -> Logger {
    var logger = Logger(label: "tessera")
    logger.logLevel = level
    return logger
}

/// Opens the existing deployment named by the options (never creating one), runs `body`, and closes it.
func withRuntime<T>(_ options: ServerOptions, _ body: (TesseraRuntime) async throws -> T) async throws -> T {
    let configuration = try await options.configuration()
    let runtime = try await TesseraRuntime.bootstrap(
        configuration: configuration, logger: makeLogger(level: .warning), runsNodes: false, createsDeployment: false
    )
    do {
        let value = try await body(runtime)
        await runtime.shutdown()
        return value
    } catch {
        await runtime.shutdown()
        throw error
    }
}
