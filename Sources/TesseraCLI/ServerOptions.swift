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

    func reader(overrides: [String: ConfigContent] = [:]) async throws -> ConfigReader {
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
            providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(config)))
        }
        return ConfigReader(providers: providers)
    }

    func configuration(overrides: [String: ConfigContent] = [:]) async throws -> ServerConfiguration {
        do {
            return try ServerConfiguration(reader: try await reader(overrides: overrides))
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}

func makeLogger(level: Logger.Level) -> Logger {
    var logger = Logger(label: "tessera")
    logger.logLevel = level
    return logger
}

/// Opens the storage named by the options, runs `body`, and closes it.
func withRuntime<T>(_ options: ServerOptions, _ body: (TesseraRuntime) async throws -> T) async throws -> T {
    let configuration = try await options.configuration()
    let runtime = try await TesseraRuntime.bootstrap(configuration: configuration, logger: makeLogger(level: .warning), runsNodes: false)
    do {
        let value = try await body(runtime)
        await runtime.shutdown()
        return value
    } catch {
        await runtime.shutdown()
        throw error
    }
}
