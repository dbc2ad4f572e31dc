import Crypto
import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// ``DeviceLookups``: the hot paths' device reads, many requests' lookups in one statement on PostgreSQL. Whatever
/// the batch, each lookup gets its own device's answer, and a revoked device, an unknown one or another client's user
/// is never mistaken for an active one.
@Suite("Device lookups")
struct DeviceLookupsTests {
    /// A signed-up user `userKey` of `client`: its device ID.
    private static func enrol(_ runtime: TesseraRuntime, _ client: Client, userKey: String, phone: String) async throws -> String {
        let email = "\(userKey)@example.com"
        let request = SignUpFixtures.request(
            client, email: email, phone: phone, userKey: userKey, token: try await SignUpFixtures.disposeToken(runtime, client, email: email),
            deviceKey: P256.Signing.PrivateKey()
        )
        let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
        return try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone).deviceId
    }

    @Test("concurrent lookups of active, revoked and unknown devices and users: each its own answer", arguments: TestDatabase.kinds)
    func concurrent(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let client = try await runtime.makeTestClient(), other = try await runtime.makeTestClient()
            var devices: [String: String] = [:]
            for (index, user) in ["ada", "bob", "cyd"].enumerated() {
                devices[user] = try await Self.enrol(runtime, client, userKey: user, phone: "+4179000007\(index)")
            }
            let repository = runtime.repositories.devices
            let revoked = try #require(devices["cyd"])
            #expect(try await runtime.database.transaction { try await repository.revoke(deviceId: revoked, now: runtime.clock.now(), in: $0) })

            let lookups = DeviceLookups(database: runtime.database, devices: repository)
            #expect(lookups.batches == (kind == .postgres))
            let expected = ["ada": true, "bob": true, "cyd": false]
            // Each lookup in four rounds at once: on PostgreSQL most of them wait for a batch of several keys.
            let answers = try await withThrowingTaskGroup(of: (String, Bool, Int).self) { group in
                for _ in 0..<4 {
                    for (user, device) in devices {
                        group.addTask { (user, try await lookups.isActive(deviceId: device), -1) }
                        group.addTask { (user, false, try await lookups.activeTOTPSecrets(clientId: client.id, userKey: user).count) }
                    }
                    group.addTask { ("unknown", try await lookups.isActive(deviceId: "dev_unknown"), -1) }
                    group.addTask { ("nobody", false, try await lookups.activeTOTPSecrets(clientId: client.id, userKey: "nobody").count) }
                    group.addTask { ("other", false, try await lookups.activeTOTPSecrets(clientId: other.id, userKey: "ada").count) }
                }
                return try await group.reduce(into: [(String, Bool, Int)]()) { $0.append($1) }
            }
            #expect(answers.count == 4 * (2 * 3 + 3))
            for (user, active, secrets) in answers {
                if secrets == -1 {
                    #expect(active == (expected[user] ?? false), "\(user)")
                } else {
                    #expect(secrets == ((expected[user] ?? false) ? 1 : 0), "\(user): \(secrets) secrets")
                }
            }
            let secrets = try await lookups.activeTOTPSecrets(clientId: client.id, userKey: "ada")
            #expect(secrets.map(\.deviceId) == [devices["ada"]!])

            // The signed requests' key lookup, concurrent: each device its own user and state.
            let auth = SQLDeviceRepository(database: runtime.database)
            let targets = try await withThrowingTaskGroup(of: (String, DeviceAuthTarget?).self) { group in
                for _ in 0..<4 {
                    for (user, device) in devices { group.addTask { (user, try await auth.authTarget(deviceId: device)) } }
                    group.addTask { ("unknown", try await auth.authTarget(deviceId: "dev_unknown")) }
                }
                return try await group.reduce(into: [(String, DeviceAuthTarget?)]()) { $0.append($1) }
            }
            #expect(targets.count == 16)
            for (user, target) in targets {
                guard let expectedActive = expected[user] else {
                    #expect(target == nil)
                    continue
                }
                #expect(target?.deviceId == devices[user] && target?.userKey == user && target?.clientId == client.id, "\(user)")
                #expect(target?.active == expectedActive, "\(user)")
            }

            // The repository's batch statements themselves (a key twice, an unknown one, another client's user).
            let ids = [devices["ada"]!, devices["bob"]!, revoked, "dev_unknown", devices["ada"]!]
            #expect(try await runtime.database.read { try await repository.activeAmong(deviceIds: ids, in: $0) } == [devices["ada"]!, devices["bob"]!])
            let users = ["ada", "bob", "cyd", "nobody", "ada"].map { ClientUserKey(clientId: client.id, userKey: $0) }
                + [ClientUserKey(clientId: other.id, userKey: "bob")]
            let found = try await runtime.database.read { try await repository.activeTOTPSecrets(of: users, in: $0) }
            #expect(Set(found.keys) == [ClientUserKey(clientId: client.id, userKey: "ada"), ClientUserKey(clientId: client.id, userKey: "bob")])
            #expect(found[ClientUserKey(clientId: client.id, userKey: "bob")]?.map(\.deviceId) == [devices["bob"]!])
        }
    }
}
