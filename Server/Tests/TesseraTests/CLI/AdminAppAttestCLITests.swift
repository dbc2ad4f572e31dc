import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// `tessera admin client app-attest` and the App Attest state in `tessera admin user list`, against a running server:
/// off at first; settings set (JSON back, audited `admin.client.app_attest_set`); a setting given alone keeps the
/// others; a mistyped flag or value stops before any call, naming it; a bad team ID is 1005 naming the member; a
/// device is listed as not attested, then as attested with its environment and counter.
@Suite("CLI: tessera admin client app-attest")
struct AdminAppAttestCLITests {
    @Test("show off; set reported (JSON, audited); --environment alone keeps the rest; --policy on, --polcy and --environment prod stop naming them; teamId 1005")
    func settings() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Bank", bundleIds: ["com.example.bank"]).client
            let base = ["admin", "client", "app-attest", client.clientKey]
            let shown = try await DeviceCLITests.run(tessera, base + admin)
            #expect(shown.status == 0 && shown.output.contains("policy:       off"), "\(shown.output)")
            let set = try await DeviceCLITests.run(
                tessera, base + ["--policy", "reported", "--team-id", "ABCDE12345", "--bundle-id", "com.example.bank", "--environment", "development", "--json"] + admin
            )
            #expect(set.status == 0, "\(set.output)")
            let settings = try JSONDecoder().decode(AppAttestSettings.self, from: Data(set.output.utf8))
            #expect(settings == AppAttestSettings(policy: "reported", teamId: "ABCDE12345", bundleId: "com.example.bank", environment: "development"))
            let production = try await DeviceCLITests.run(tessera, base + ["--environment", "production"] + admin)
            #expect(production.status == 0, "\(production.output)")
            for line in ["policy:       reported", "team id:      ABCDE12345", "bundle id:    com.example.bank", "environment:  production"] {
                #expect(production.output.contains(line), "\(production.output)")
            }

            let on = try await DeviceCLITests.run(tessera, base + ["--policy", "on"] + admin)
            #expect(on.status != 0 && on.output.contains("--policy must be off, reported or required, not on"), "\(on.output)")
            let typo = try await DeviceCLITests.run(tessera, base + ["--polcy", "required"] + admin)
            #expect(typo.status != 0 && typo.output.contains("--polcy"), "\(typo.output)")
            let prod = try await DeviceCLITests.run(tessera, base + ["--environment", "prod"] + admin)
            #expect(prod.status != 0 && prod.output.contains("--environment must be development or production, not prod"), "\(prod.output)")
            let team = try await DeviceCLITests.run(tessera, base + ["--team-id", "abc"] + admin)
            #expect(team.status != 0 && team.output.contains("1005") && team.output.contains("teamId"), "\(team.output)")

            let rows = try await runtime.database.read { sql in
                try await runtime.repositories.audit.entries(.init(type: "admin.client.app_attest_set"), in: sql)
            }
            #expect(rows.count == 2)
            let stored = try await runtime.appAttestSettings.settings(client: client)
            #expect(stored.environment == "production" && stored.teamId == "ABCDE12345")
        }
    }

    @Test("user list: a device without a key is not attested; with one, attested with its environment, counter and time")
    func deviceState() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Bank", bundleIds: ["com.example.bank"]).client
            let user = try await PushFixtures.user(runtime, client: client, name: "alice")
            let list = ["admin", "user", "list", "--client-key", client.clientKey]
            let before = try await DeviceCLITests.run(tessera, list + admin)
            #expect(before.status == 0 && before.output.contains("app attest not attested"), "\(before.output)")

            let attestedAt = runtime.clock.now()
            let record = AppAttestKeyRecord(
                deviceId: user.deviceId, keyId: Array(repeating: 7, count: 32), publicKey: Array(repeating: 4, count: 65), counter: 3,
                environment: .production, receipt: [], attestedAt: attestedAt
            )
            let repository = runtime.repositories.appAttest
            try await runtime.database.transaction { sql in try await repository.storeKey(record, attestationObject: [0xA0], challenge: Array(repeating: 1, count: 32), in: sql) }
            let after = try await DeviceCLITests.run(tessera, list + admin)
            #expect(after.status == 0, "\(after.output)")
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(attestedAt) / 1000))
            #expect(after.output.contains("app attest attested (production, counter 3) \(time)"), "\(after.output)")
        }
    }
}
