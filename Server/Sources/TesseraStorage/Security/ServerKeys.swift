import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore

/// The server's own secret keys, generated at first start and kept in the database sealed
/// (AES-256-GCM) under the master key, so a copy of the database alone reveals none of them.
/// Every instance that shares a database must be given the same master key.
public struct ServerKeys: Sendable {
    /// Key for the keyed hashes of secrets.
    public let hashKey: SymmetricKey
    /// Key that seals message payloads waiting in the outbox (they contain codes).
    public let outboxKey: SymmetricKey
    /// Key that seals TOTP secrets at rest (the server must read them back to verify codes).
    public let totpKey: SymmetricKey
    /// Key that seals the result-token signing keys and the tokens kept for relying parties.
    public let tokenSealKey: SymmetricKey
    /// Key that seals the clients' push provider secrets (APNs .p8 keys, FCM service-account keys).
    public let pushKey: SymmetricKey
    /// P-256 key the server signs its calls to verifier nodes with.
    public let nodeControlKey: P256.Signing.PrivateKey
    /// Ed25519 key that signs the audit log's checkpoints (its public half is served to verifiers).
    public let auditKey: Curve25519.Signing.PrivateKey
    /// Key that seals the webhook endpoints' signing secrets.
    public let webhookKey: SymmetricKey

    public var hasher: SecretHasher { SecretHasher(key: hashKey) }

    /// Loads the keys, creating any that do not exist yet. Safe when several instances start at once:
    /// the first insert wins and everyone reads the stored value back.
    package static func loadOrCreate(
        database: any Database, masterKey: SymmetricKey, random: RandomSource, clock: WallClock
    ) async throws -> ServerKeys {
        func key(_ name: String) async throws -> SymmetricKey {
            let fresh = Data(random.bytes(32))
            let sealed = try Sealing.seal(fresh, using: masterKey, authenticating: Data(name.utf8))
            let stored: String = try await database.withSQL { sql in
                try await sql.raw(
                    """
                    INSERT INTO server_secrets (name, sealed, created_at) VALUES (\(bind: name), \(bind: sealed.base64EncodedString()), \(bind: clock.now()))
                    ON CONFLICT (name) DO NOTHING
                    """
                ).run()
                guard let row = try await sql.raw("SELECT sealed FROM server_secrets WHERE name = \(bind: name)").first() else {
                    throw ConfigurationError("server secret \(name) could not be stored")
                }
                return try row.decode(column: "sealed", as: String.self)
            }
            guard let combined = Data(base64Encoded: stored),
                  let box = try? AES.GCM.SealedBox(combined: combined),
                  let opened = try? AES.GCM.open(box, using: masterKey, authenticating: Data(name.utf8))
            else {
                throw ConfigurationError(
                    "cannot unseal server secret '\(name)': the master key differs from the one this database was created with"
                )
            }
            return SymmetricKey(data: opened)
        }
        let control = try await key("node-control-key").withUnsafeBytes { try P256.Signing.PrivateKey(rawRepresentation: Data($0)) }
        let audit = try await key("audit-key").withUnsafeBytes { try Curve25519.Signing.PrivateKey(rawRepresentation: Data($0)) }
        return ServerKeys(
            hashKey: try await key("hash-key"), outboxKey: try await key("outbox-key"), totpKey: try await key("totp-key"),
            tokenSealKey: try await key("token-seal-key"), pushKey: try await key("push-key"), nodeControlKey: control,
            auditKey: audit, webhookKey: try await key("webhook-key")
        )
    }

    /// Reads the master key from configuration (base64, 32 bytes) or, in development, from
    /// `<dataDir>/master.key`, creating it (mode 0600) on first start.
    ///
    /// A new key is made only for a database that holds no sealed server secrets yet. A database
    /// that another instance set up (or whose key file was lost) can only be opened with the key it
    /// was set up with, so a new key would be refused a moment later: the start is refused now,
    /// naming what to do, and no stray `master.key` is left behind. `database` is asked only then,
    /// when there is neither a configured key nor a key file.
    package static func masterKey(
        configured: String?, dataDirectory: String, database: any Database, random: RandomSource, logger: Logger
    ) async throws -> SymmetricKey {
        if let configured {
            guard let data = Data(base64Encoded: configured.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32 else {
                throw ConfigurationError("masterKey must be 32 bytes in base64 (for example: openssl rand -base64 32)")
            }
            return SymmetricKey(data: data)
        }
        let path = (dataDirectory as NSString).appendingPathComponent("master.key")
        if !FileManager.default.fileExists(atPath: path), try await storedSecretCount(database: database) > 0 {
            throw ConfigurationError(
                "the database already holds server secrets sealed under a master key, and \(path) does not exist: give this instance "
                    + "the key the database was set up with (copy the master.key of the instance that set it up into \(dataDirectory), "
                    + "or set masterKey / TESSERA_MASTER_KEY)"
            )
        }
        let (text, created) = try KeyFile.readOrCreate(path: path) { Data(random.bytes(32)).base64EncodedString() }
        guard let data = Data(base64Encoded: text), data.count == 32 else {
            throw ConfigurationError("\(path) is not a 32-byte base64 key")
        }
        if created { logger.notice("generated a new master key", metadata: ["path": .string(path)]) }
        return SymmetricKey(data: data)
    }

    /// How many sealed server secrets the database holds (a deployment's database holds some).
    package static func storedSecretCount(database: any Database) async throws -> Int {
        try await database.withSQL { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM server_secrets").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}
