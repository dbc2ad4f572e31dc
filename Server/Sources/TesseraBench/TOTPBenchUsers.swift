import Crypto
import Foundation
import Logging
import TesseraServer
import TesseraCore

/// The TOTP benchmark's users (`tessera-bench totp-bodies --create`): many users with known TOTP
/// secrets, created through the server's fixture path (``DeploymentStorage/createFixtureUsers(clientKey:_:)``,
/// which goes through the users' and devices' repositories), since enrolling tens of thousands of
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
        let users = (0..<count).map { index in
            let name = String(format: "totp-%05d", index)
            return FixtureUser(userKey: name, email: "\(name)@bench.invalid", phone: String(format: "+1555%07d", index), totpSecret: secret(index))
        }
        _ = try await storage.createFixtureUsers(clientKey: clientKey, users)
    }
}

/// A bench step that cannot go on.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
