import Foundation
import Logging
import PostgresNIO

extension TesseraRuntime {
    /// Opens storage, runs migrations, loads or creates the server keys and, on first start, the
    /// admin token and demo client.
    /// - Parameters:
    ///   - runsNodes: Whether this process runs the embedded verifier nodes (`serve`: yes;
    ///     the admin CLI: no, so it neither opens their registries nor changes their registration).
    ///   - createsDeployment: Whether a missing deployment (data directory, master key, database) is
    ///     created (`serve`), or refused with ``ConfigurationError`` before anything is written (the
    ///     admin CLI, which must only open an existing one).
    ///   - nodeLauncher: Starts the ``ServerConfiguration/embeddedNodes`` embedded nodes (`serve`:
    ///     `tessera node` child processes). Needed when `runsNodes` and there are embedded nodes.
    public static func bootstrap(
        configuration: ServerConfiguration, logger: Logger, clock: WallClock = .system, random: RandomSource = .system,
        runsNodes: Bool = true, createsDeployment: Bool = true, nodeLauncher: (any EmbeddedNodeLauncher)? = nil
    ) async throws -> TesseraRuntime {
        guard createsDeployment else {
            try checkDeploymentFiles(configuration)
            return try await openDeployment(
                configuration: configuration, logger: logger, clock: clock, random: random, runsNodes: runsNodes, createsDeployment: false,
                nodeLauncher: nodeLauncher
            )
        }
        try FileManager.default.createDirectory(
            atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        return try await StartupLock.withLock(directory: configuration.dataDirectory) {
            try await openDeployment(
                configuration: configuration, logger: logger, clock: clock, random: random, runsNodes: runsNodes, createsDeployment: true,
                nodeLauncher: nodeLauncher
            )
        }
    }

    /// Opens the database named by the configuration (checking, unless it may create one, that it
    /// holds a deployment) and bootstraps on it.
    private static func openDeployment(
        configuration: ServerConfiguration, logger: Logger, clock: WallClock, random: RandomSource, runsNodes: Bool, createsDeployment: Bool,
        nodeLauncher: (any EmbeddedNodeLauncher)?
    ) async throws -> TesseraRuntime {
        let database = try await DeploymentStorage.openDatabase(configuration: configuration, logger: logger)
        if !createsDeployment {
            do {
                try await checkDeploymentDatabase(database, configuration: configuration)
            } catch {
                await database.close()
                throw error
            }
        }
        return try await bootstrap(
            configuration: configuration, database: database, logger: logger, clock: clock, random: random, runsNodes: runsNodes,
            createsDeployment: createsDeployment, nodeLauncher: nodeLauncher
        )
    }

    /// The files an existing deployment has: the master key (unless configured) and, without a
    /// database URL, the SQLite file.
    static func checkDeploymentFiles(_ configuration: ServerConfiguration) throws {
        let hint = "start `tessera serve` with the same --data-dir / --database-url first, or give the right ones"
        if configuration.databaseURL == nil, !FileManager.default.fileExists(atPath: configuration.sqlitePath) {
            throw ConfigurationError("no Tessera deployment in \(configuration.dataDirectory) (no \(configuration.sqlitePath)): \(hint)")
        }
        let keyPath = (configuration.dataDirectory as NSString).appendingPathComponent("master.key")
        if configuration.masterKey == nil, !FileManager.default.fileExists(atPath: keyPath) {
            throw ConfigurationError("no master key for the deployment (no \(keyPath) and no TESSERA_MASTER_KEY): \(hint)")
        }
    }

    /// A deployment's database holds its sealed server secrets.
    static func checkDeploymentDatabase(_ database: any Database, configuration: ServerConfiguration) async throws {
        let count = try? await ServerKeys.storedSecretCount(database: database)
        guard let count, count > 0 else {
            let place = configuration.databaseURL == nil ? configuration.sqlitePath : "the database at the database URL"
            throw ConfigurationError(
                "no Tessera deployment in \(place) (no server secrets): start `tessera serve` with the same --data-dir / --database-url first"
            )
        }
    }

    /// Same, on an already opened database (tests use in-memory SQLite or a test PostgreSQL).
    public static func bootstrap(
        configuration: ServerConfiguration, database: any Database, logger: Logger, clock: WallClock = .system,
        random: RandomSource = .system, runsNodes: Bool = true, createsDeployment: Bool = true,
        nodeLauncher: (any EmbeddedNodeLauncher)? = nil
    ) async throws -> TesseraRuntime {
        let http = OutboundHTTPClients(configuration: configuration)
        var embedded: [EmbeddedNode] = []
        do {
            if createsDeployment {
                try FileManager.default.createDirectory(
                    atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
                )
            }
            let applied = try await Migrator.migrate(database)
            if !applied.isEmpty { logger.info("migrations applied", metadata: ["versions": .string(applied.map(String.init).joined(separator: ","))]) }
            let masterKey = try await ServerKeys.masterKey(
                configured: configuration.masterKey, dataDirectory: configuration.dataDirectory, database: database, random: random,
                logger: logger
            )
            let keys = try await ServerKeys.loadOrCreate(database: database, masterKey: masterKey, random: random, clock: clock)
            let adminToken = try await AdminAuthenticator.createTokenIfMissing(
                database: database, hasher: keys.hasher, random: random, configured: configuration.adminToken
            )
            if runsNodes {
                embedded = try await launchEmbeddedNodes(configuration: configuration, keys: keys, launcher: nodeLauncher, logger: logger)
            }
            return try await TesseraRuntime(
                configuration: configuration, database: database, keys: keys, clock: clock, random: random, logger: logger,
                firstStartAdminToken: adminToken, http: http, runsNodes: runsNodes, embeddedNodes: embedded
            )
        } catch {
            for node in embedded { await node.stop() }
            await http.shutdown()
            await database.close()
            if let postgres = database as? TesseraStorage.PostgresDatabase, error is PSQLError {
                throw ConfigurationError("start failed on PostgreSQL at \(postgres.location): \(TesseraStorage.PostgresDatabase.describe(error))")
            }
            throw error
        }
    }
}
