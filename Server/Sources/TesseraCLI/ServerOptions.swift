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
        try UsageError.checkConfigurationArguments(extra)
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
        } catch let error as ValidationError {
            throw error
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        } catch {
            throw ValidationError("the configuration cannot be read: \(error)")
        }
    }
}

func makeLogger(level: Logger.Level, label: String = "tessera") -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = level
    return logger
}

/// Opens the storage and keys of the existing deployment named by the options (never creating
/// one, never migrating, wiring no service), runs `body`, and closes it.
func withDeploymentStorage<T>(_ options: ServerOptions, _ body: (DeploymentStorage) async throws -> T) async throws -> T {
    let configuration = try await options.configuration()
    let storage = try await DeploymentStorage.open(configuration: configuration, logger: makeLogger(level: .warning))
    do {
        let value = try await body(storage)
        await storage.close()
        return value
    } catch {
        await storage.close()
        throw error
    }
}
