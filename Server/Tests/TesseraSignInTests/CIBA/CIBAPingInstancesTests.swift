import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// CIBA ping notifications (CIBA Core 1.0 §10.2) across two server instances on one PostgreSQL database, on the
/// injected clock: requests made on both instances are notified once each when they expire, through a receiver that is
/// down at first (the pings are retried after the backoff) and after the instance that queued half of them has shut
/// down without sending anything (what it queued is in the database, not in its memory).
@Suite("CIBA: pings across instances", .serialized)
struct CIBAPingInstancesTests {
    @Test("12 ping-mode requests on two instances: refused while the receiver is down, then each delivered exactly once by the surviving instance with its bearer token and auth_req_id")
    func twoInstances() async throws {
        _ = try TestRequirements.postgresURL()
        let url = try await TestDatabase.freshPostgresURL()
        let manual = ManualClock()
        var configuration = ServerConfiguration()
        configuration.createDemoClient = false
        configuration.embeddedNodes = 0
        configuration.masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        func instance() async throws -> TesseraRuntime {
            var own = configuration
            own.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ciba-\(UUID().uuidString)").path
            return try await TesseraRuntime.bootstrap(
                configuration: own, database: try await PostgresDatabase.open(url: url, logger: TestDatabase.logger), logger: TestDatabase.logger,
                clock: manual.clock, runsNodes: false
            )
        }
        let first = try await instance(), second = try await instance()
        let receiver = try await FixtureServer(script: "ciba_ping_receiver.py", imports: [], purpose: "the CIBA ping receiver")
        defer { receiver.stop() }
        do {
            let client = try await first.makeTestClient()
            _ = try await first.signIn.ciba.setSettings(
                CIBAClientSettings(deliveryMode: "ping", notificationEndpoint: "http://127.0.0.1:\(receiver.port)/ciba"), client: client
            )
            var sent: [String: String] = [:]
            for index in 0..<12 {
                let token = "token-\(index)"
                let started = try await (index.isMultiple(of: 2) ? first : second).signIn.ciba.authenticate(client: client, form: [
                    "scope": "openid", "login_hint": "nobody\(index)@example.com", "client_notification_token": token, "requested_expiry": "1",
                ])
                sent[started.authReqId] = token
            }
            try receiver.setDown(true)
            manual.advance(by: .seconds(2))
            async let a = first.signIn.cibaPings.drain()
            async let b = second.signIn.cibaPings.drain()
            #expect(await a + b == 12, "each ping tried once while the receiver is down")
            #expect(try receiver.records().isEmpty)

            await first.shutdown()
            try receiver.setDown(false)
            manual.advance(by: .seconds(5))
            async let c = second.signIn.cibaPings.drain()
            async let d = second.signIn.cibaPings.drain()
            #expect(await c + d == 12)
            let records = try receiver.records()
            #expect(records.count == 12, "\(records)")
            let received = Dictionary(records.compactMap { record -> (String, String)? in
                guard let id = (record["body"] as? [String: String])?["auth_req_id"], let bearer = record["authorization"] as? String else { return nil }
                return (id, bearer)
            }, uniquingKeysWith: { first, _ in first })
            #expect(received == sent.mapValues { "Bearer " + $0 }, "every request's ping, once, with its own token")
            #expect(try await second.signIn.cibaPings.queue.repository.counts() == ["sent": 12])
            #expect(await second.signIn.cibaPings.drain() == 0, "nothing is sent again")
        } catch {
            await first.shutdown()
            await second.shutdown()
            await TestDatabase.drop(url)
            throw error
        }
        await second.shutdown()
        await TestDatabase.drop(url)
    }
}
