import Foundation
import Synchronization
import Logging
import PostgresKit
import PostgresNIO
import SQLKit
import ServiceLifecycle

/// PostgreSQL storage over a `PostgresClient` pool. The pool runs from ``open(url:logger:)`` until
/// ``close()``.
public final class PostgresDatabase: Database {
    public let kind = DatabaseKind.postgres
    package let client: PostgresClient
    private let logger: Logger
    private let probeConfiguration: PostgresConnection.Configuration
    /// `host:port/database`, for messages (never the password).
    public let location: String
    /// Whether statements run as named prepared statements (``PostgresPreparedSQL``); `?prepare=off` turns it off.
    package let prepares: Bool
    /// The options a database URL may carry after `?`.
    static let urlOptions: Set<String> = ["sslmode", "prepare", "pool_max_conns"]
    /// The most connections the pool opens when the URL does not say (`?pool_max_conns=`).
    static let defaultMaximumConnections = 16
    /// How many connections this pool opens at most.
    package let maximumConnections: Int

    /// Creates a pool for a `postgres://user:password@host:port/database` URL.
    package init(url: String, logger: Logger) throws {
        guard let components = URLComponents(string: url),
              let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql",
              let host = components.host
        else {
            throw ConfigurationError("database URL must look like postgres://user:password@host:5432/database")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        for item in components.queryItems ?? [] where !Self.urlOptions.contains(item.name) {
            throw ConfigurationError(
                "database URL option \"\(item.name)\" is unknown (known: \(Self.urlOptions.sorted().joined(separator: ", ")))"
            )
        }
        let tlsMode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        guard ["disable", "prefer", "require", "verify-ca", "verify-full"].contains(tlsMode) else {
            throw ConfigurationError("database URL option sslmode=\(tlsMode) is invalid (disable, prefer, require, verify-ca or verify-full)")
        }
        switch components.queryItems?.first(where: { $0.name == "prepare" })?.value ?? "on" {
        case "on": prepares = true
        case "off": prepares = false
        case let other: throw ConfigurationError("database URL option prepare=\(other) is invalid (on or off)")
        }
        let poolText = components.queryItems?.first(where: { $0.name == "pool_max_conns" })?.value ?? "\(Self.defaultMaximumConnections)"
        guard let pool = Int(poolText), (1...1000).contains(pool) else {
            throw ConfigurationError("database URL option pool_max_conns=\(poolText) is invalid (a number of connections, 1–1000)")
        }
        maximumConnections = pool
        let tls: PostgresClient.Configuration.TLS
        let probeTLS: PostgresConnection.Configuration.TLS
        switch tlsMode {
        case "disable": (tls, probeTLS) = (.disable, .disable)
        case "prefer": (tls, probeTLS) = (.prefer(.makeClientConfiguration()), try .prefer(.init(configuration: .makeClientConfiguration())))
        default: (tls, probeTLS) = (.require(.makeClientConfiguration()), try .require(.init(configuration: .makeClientConfiguration())))
        }
        let username = components.user ?? "postgres"
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: username,
            password: components.password, database: database.isEmpty ? nil : database, tls: tls
        )
        probeConfiguration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: username, password: components.password,
            database: database.isEmpty ? nil : database, tls: probeTLS
        )
        configuration.options.maximumConnections = pool
        location = "\(host):\(components.port ?? 5432)/\(database.isEmpty ? username : database)"
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    private let runner = RunnerBox()

    /// Opens a pool and checks that the server answers.
    public static func open(url: String, logger: Logger) async throws -> PostgresDatabase {
        let database = try PostgresDatabase(url: url, logger: logger)
        // One plain connection first: a wrong password or database fails at once, with the server's words.
        do {
            let probe = try await PostgresConnection.connect(configuration: database.probeConfiguration, id: 0, logger: logger)
            try await probe.close()
        } catch {
            throw ConfigurationError("cannot connect to PostgreSQL at \(database.location): \(Self.describe(error))")
        }
        let client = database.client
        database.runner.set(Task { await client.run() })
        try await Task.sleep(for: .milliseconds(20))  // let run() start before the first lease
        do {
            try await database.withSQL { sql in try await sql.raw("SELECT 1").run() }
        } catch {
            await database.close()
            throw ConfigurationError("cannot reach PostgreSQL at \(database.location): \(Self.describe(error))")
        }
        return database
    }

    public func withSQL<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            let prepares = self.prepares
            return try await client.withConnection { connection in
                try await Self.onLoop(of: connection) {
                    try await body(PostgresPreparedSQL(connection: connection, autocommit: true, prepares: prepares))
                }
            }
        } catch {
            throw RefusedValue.problem(for: error) ?? DatabaseOutage.problem(for: error) ?? error
        }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        do {
            let prepares = self.prepares
            return try await client.withConnection { connection in
                try await Self.onLoop(of: connection) {
                    try await inTransaction(PostgresPreparedSQL(connection: connection, autocommit: false, prepares: prepares), begin: "BEGIN", body)
                }
            }
        } catch {
            throw RefusedValue.problem(for: error) ?? DatabaseOutage.problem(for: error) ?? error
        }
    }

    public func close() async {
        runner.cancel()
    }

    /// Runs `body` on the event loop of `connection`: the statements of a lease (a transaction's BEGIN, its
    /// statements, its COMMIT) are written and answered there without a hop to and from the global executor
    /// each (two thread wake-ups per statement); the task leaves the loop once, when the lease ends. Each
    /// statement's check that its connection is open relies on it (``PostgresPreparedSQL``).
    private static func onLoop<T: Sendable>(
        of connection: PostgresConnection, _ body: () async throws -> T
    ) async throws -> T {
        try await withTaskExecutorPreference(EventLoopTaskExecutor.on(connection.eventLoop)) { try await body() }
    }
}

extension PostgresDatabase {
    /// What went wrong, in PostgreSQL's own words: `SQLSTATE 23505: duplicate key value … (detail)`.
    /// `PSQLError`'s own description hides all of it behind a generic text.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let info = error.serverInfo {
            var text = "SQLSTATE \(info[.sqlState] ?? "?"): \(info[.message] ?? "no message")"
            if let detail = info[.detail] { text += " (\(detail))" }
            return text
        }
        var text = "\(error.code)"
        if let underlying = error.underlying { text += ": \(underlying)" }
        return text
    }
}

/// Holds the task that runs the pool.
private final class RunnerBox: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)
    package func set(_ task: Task<Void, Never>) { self.task.withLock { $0 = task } }
    package func cancel() {
        task.withLock {
            $0?.cancel()
            $0 = nil
        }
    }
}
