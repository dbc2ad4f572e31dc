import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// `tessera admin client ciba` against a running server: poll at first; ping with an endpoint stored and audited;
/// ping without an endpoint stops before any call; a plain-http endpoint off loopback is 1005 naming the member.
@Suite("CLI: tessera admin client ciba")
struct AdminCIBACLITests {
    @Test("show poll; set ping (JSON back, audited admin.client.ciba_set); --mode ping alone stops; http://example.com is 1005 notificationEndpoint; back to poll")
    func settings() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Bank", bundleIds: ["com.example.bank"]).client
            let base = ["admin", "client", "ciba", client.clientKey]
            let shown = try await DeviceCLITests.run(tessera, base + admin)
            #expect(shown.status == 0 && shown.output.contains("delivery:      poll"), "\(shown.output)")
            let set = try await DeviceCLITests.run(tessera, base + ["--mode", "ping", "--notification-endpoint", "https://bank.example.com/ciba", "--json"] + admin)
            #expect(set.status == 0, "\(set.output)")
            let settings = try JSONDecoder().decode(CIBAClientSettings.self, from: Data(set.output.utf8))
            #expect(settings == CIBAClientSettings(deliveryMode: "ping", notificationEndpoint: "https://bank.example.com/ciba"))
            let alone = try await DeviceCLITests.run(tessera, base + ["--mode", "ping"] + admin)
            #expect(alone.status != 0 && alone.output.contains("--mode ping needs --notification-endpoint"), "\(alone.output)")
            let plain = try await DeviceCLITests.run(tessera, base + ["--mode", "ping", "--notification-endpoint", "http://bank.example.com/ciba"] + admin)
            #expect(plain.status != 0 && plain.output.contains("1005") && plain.output.contains("notificationEndpoint"), "\(plain.output)")
            let poll = try await DeviceCLITests.run(tessera, base + ["--mode", "poll"] + admin)
            #expect(poll.status == 0 && poll.output.contains("delivery:      poll"), "\(poll.output)")
            let rows = try await runtime.database.read { sql in try await runtime.repositories.audit.entries(.init(type: "admin.client.ciba_set"), in: sql) }
            #expect(rows.count == 2)
        }
    }
}
