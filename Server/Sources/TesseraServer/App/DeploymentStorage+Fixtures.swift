import Crypto
import Foundation
import TesseraCore

/// A user a benchmark needs in bulk: created with one active device that holds a known TOTP secret.
/// For fixtures only (`tessera-bench totp-bodies --create`): enrolling tens of thousands of devices
/// through the API would take minutes.
public struct FixtureUser: Sendable {
    /// The user key; also the base of the user's and device's IDs.
    public var userKey: String
    public var email: String
    public var phone: String
    /// The raw TOTP secret of the user's device.
    public var totpSecret: [UInt8]

    /// A fixture user with these values.
    public init(userKey: String, email: String, phone: String, totpSecret: [UInt8]) {
        self.userKey = userKey
        self.email = email
        self.phone = phone
        self.totpSecret = totpSecret
    }
}

extension DeploymentStorage {
    /// Creates `users` of the client `clientKey`, each with one active device (a random P-256 key,
    /// its TOTP secret sealed as a registration seals it), through the users' and devices'
    /// repositories, a thousand per transaction. A user key that exists is left alone. Returns the
    /// number created. Benchmark fixtures only: the server never calls it.
    public func createFixtureUsers(clientKey: String, _ users: [FixtureUser]) async throws -> Int {
        let clients = SQLClientRepository(database: database), userStore = SQLUserRepository()
        let devices = SQLDeviceRepository(database: database)
        guard let clientId = try await database.withSQL({ try await clients.clientId(clientKey: clientKey, in: $0) }) else {
            throw ConfigurationError("no client \(clientKey)")
        }
        let publicKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        let now = WallClock.system.now(), totpKey = keys.totpKey
        var created = 0
        for start in stride(from: 0, to: users.count, by: 1000) {
            created += try await database.transaction { sql in
                var count = 0
                for user in users[start..<min(users.count, start + 1000)] {
                    guard try await !userStore.userKeyExists(clientId: clientId, userKey: user.userKey, in: sql) else { continue }
                    let userId = "usr_fixture_\(user.userKey)", deviceId = "dev_fixture_\(user.userKey)"
                    try await userStore.insert(
                        UserRecord(
                            id: userId, clientId: clientId, userKey: user.userKey, name: "Fixture", email: user.email, phone: user.phone,
                            localAuthType: "NONE", createdAt: now
                        ),
                        in: sql
                    )
                    let sealed = try Sealing.seal(Data(user.totpSecret), using: totpKey, authenticating: Data(deviceId.utf8)).base64EncodedString()
                    try await devices.insert(
                        DeviceRecord(
                            id: deviceId, userId: userId, clientId: clientId, deviceKey: publicKey, userVerificationKey: publicKey, os: "fixture",
                            appVersion: "fixture", pushToken: "", totpSecretSealed: sealed, createdAt: now
                        ),
                        in: sql
                    )
                    count += 1
                }
                return count
            }
        }
        return created
    }
}
