import Crypto
import Foundation
import Logging
import PostgresNIO

/// An existing deployment's storage and server keys, opened without running migrations, wiring
/// services or starting anything: for the few admin commands that must work while the server is
/// stopped (`tessera admin token reset`, `tessera admin node server-key`). Everything else goes
/// through the admin HTTP API of the running server.
public struct DeploymentStorage: Sendable {
    /// The deployment's database.
    let database: any Database
    /// The deployment's server keys, opened with its master key.
    public let keys: ServerKeys

    /// Opens the deployment named by the configuration, refusing with ``ConfigurationError`` (and
    /// writing nothing) when there is none: no SQLite file, no master key, or no server secrets.
    public static func open(configuration: ServerConfiguration, logger: Logger) async throws -> DeploymentStorage {
        try TesseraRuntime.checkDeploymentFiles(configuration)
        let database = try await openDatabase(configuration: configuration, logger: logger)
        do {
            try await TesseraRuntime.checkDeploymentDatabase(database, configuration: configuration)
            let masterKey = try await ServerKeys.masterKey(
                configured: configuration.masterKey, dataDirectory: configuration.dataDirectory, database: database, random: .system,
                logger: logger
            )
            let keys = try await ServerKeys.loadOrCreate(database: database, masterKey: masterKey, random: .system, clock: .system)
            return DeploymentStorage(database: database, keys: keys)
        } catch {
            await database.close()
            if let postgres = database as? TesseraStorage.PostgresDatabase, error is PSQLError {
                throw ConfigurationError("cannot open the deployment on PostgreSQL at \(postgres.location): \(TesseraStorage.PostgresDatabase.describe(error))")
            }
            throw error
        }
    }

    /// Refuses with ``ConfigurationError`` when the configuration names no deployment on this
    /// machine (no SQLite file without a database URL, or no master key), before anything is opened.
    public static func checkExists(_ configuration: ServerConfiguration) throws {
        try TesseraRuntime.checkDeploymentFiles(configuration)
    }

    /// The database the configuration names: PostgreSQL when it has a URL, else the SQLite file.
    static func openDatabase(configuration: ServerConfiguration, logger: Logger) async throws -> any Database {
        if let url = configuration.databaseURL {
            return try await TesseraStorage.PostgresDatabase.open(url: url, logger: logger)
        }
        return try await SQLiteDatabase.open(path: configuration.sqlitePath, logger: logger)
    }

    /// The public half of the key the server signs node calls with: what `tessera node --server-key` needs.
    public var nodeControlPublicKey: String { keys.nodeControlKey.publicKey.x963Representation.base64EncodedString() }

    /// Replaces the admin token and returns the new one (the old one stops working at once, also
    /// for a running server).
    public func resetAdminToken() async throws -> String {
        try await AdminAuthenticator.resetToken(database: database, hasher: keys.hasher, random: .system)
    }

    /// Closes the database.
    public func close() async { await database.close() }
}
