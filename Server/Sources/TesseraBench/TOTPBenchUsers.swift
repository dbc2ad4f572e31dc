import Crypto
import Foundation
import Logging
import SQLKit
import TesseraServer
import TesseraCore

/// The TOTP benchmark's users (`tessera-bench totp-bodies --create`): many users with known TOTP
/// secrets, written straight into a deployment's storage, since enrolling tens of thousands of
/// devices through the API would take minutes. A bench fixture: it lives in the bench-only
/// executable, never in the server, and its secrets come from a fixed, public key.
enum TOTPBenchUsers {
    /// The TOTP secret of bench user `index`: HMAC-SHA1 of its name under a fixed, public key.
    static func secret(_ index: Int) -> [UInt8] {
        Array(HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(String(format: "totp-%05d", index).utf8), using: SymmetricKey(data: Data("tessera-bench".utf8))
        ))
    }

    /// Creates users `totp-00000`… of `clientKey` in the deployment at `dataDirectory` (or the
    /// PostgreSQL database at `databaseURL`), each with one active device holding ``secret(_:)``.
    /// Existing ones are left alone.
    static func create(dataDirectory: String, databaseURL: String?, clientKey: String, count: Int) async throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = dataDirectory
        configuration.databaseURL = databaseURL
        var logger = Logger(label: "tessera-bench")
        logger.logLevel = .warning
        let storage = try await DeploymentStorage.open(configuration: configuration, logger: logger)
        do {
            try await create(in: storage, clientKey: clientKey, count: count)
            await storage.close()
        } catch {
            await storage.close()
            throw error
        }
    }

    private static func create(in storage: DeploymentStorage, clientKey: String, count: Int) async throws {
        let clientId = try await storage.database.withSQL { sql in
            try await sql.raw("SELECT id FROM clients WHERE client_key = \(bind: clientKey)").first()?.decode(column: "id", as: String.self)
        }
        guard let clientId else { throw BenchFailure("no client \(clientKey)") }
        let publicKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        let now = WallClock.system.now(), totpKey = storage.keys.totpKey
        for batch in stride(from: 0, to: count, by: 1000) {
            try await storage.database.transaction { sql in
                for index in batch..<min(count, batch + 1000) {
                    let name = String(format: "totp-%05d", index)
                    let userId = "usr_bench_\(name)", deviceId = "dev_bench_\(name)"
                    let inserted = try await sql.raw(
                        """
                        INSERT INTO users (id, client_id, user_key, name, email, phone, local_auth_type, agreed_at, created_at)
                        VALUES (\(bind: userId), \(bind: clientId), \(bind: name), 'Bench', \(bind: "\(name)@bench.invalid"),
                                \(bind: String(format: "+1555%07d", index)), 'NONE', \(bind: now), \(bind: now))
                        ON CONFLICT DO NOTHING RETURNING id
                        """
                    ).first() != nil
                    guard inserted else { continue }
                    let sealed = try Sealing.seal(Data(secret(index)), using: totpKey, authenticating: Data(deviceId.utf8)).base64EncodedString()
                    try await sql.raw(
                        """
                        INSERT INTO devices (id, user_id, client_id, device_key, uv_key, os, app_version, push_token, totp_secret_sealed, status, created_at)
                        VALUES (\(bind: deviceId), \(bind: userId), \(bind: clientId), \(bind: publicKey), \(bind: publicKey), 'bench', 'bench', '',
                                \(bind: sealed), 'active', \(bind: now))
                        """
                    ).run()
                }
            }
        }
    }
}

/// A bench step that cannot go on.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
