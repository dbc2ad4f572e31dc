import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// Two instances on one PostgreSQL with their webhook endpoint caches (`webhooks.endpointCacheMs`, 1 s): an endpoint
/// created through one instance counts there at once; the other instance, which had read the client's endpoints
/// before, sees it once its entry is older than the lifetime on the injected clock — as the README says.
@Suite("Webhook endpoint cache across instances")
struct WebhookEndpointCacheTests {
    @Test("an endpoint created through one instance: queued there at once, by the other within webhooks.endpointCacheMs")
    func acrossInstances() async throws {
        let url = try await TestDatabase.freshPostgresURL()
        let manual = WebhookDeliveryTests.clock()
        var configuration = ServerConfiguration()
        configuration.createDemoClient = false
        configuration.embeddedNodes = 0
        configuration.masterKey = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        func instance() async throws -> TesseraRuntime {
            var own = configuration
            own.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-webhook-cache-\(UUID().uuidString)").path
            return try await TesseraRuntime.bootstrap(
                configuration: own, database: try await PostgresDatabase.open(url: url, logger: TestDatabase.logger), logger: TestDatabase.logger,
                clock: manual.clock, runsNodes: false
            )
        }
        let first = try await instance(), second = try await instance()
        do {
            let client = try await first.makeTestClient()
            // The second instance reads the client's endpoints (none) with an audited change.
            try await WebhookDeliveryTests.event(second, "user.signed_up", client: client)
            let created = try await first.webhookAdmin.create(
                clientKey: client.clientKey, CreateWebhookRequest(url: "http://127.0.0.1:9/hook", eventTypes: ["user.*"])
            )
            let webhooks = first.repositories.webhooks
            func queued() async throws -> Int { try await webhooks.deliveries(endpointId: created.endpoint.id, limit: 100, before: nil).count }
            try await WebhookDeliveryTests.event(first, "user.signed_up", client: client)
            #expect(try await queued() == 1, "the creating instance queues at once")
            try await WebhookDeliveryTests.event(second, "user.signed_up", client: client)
            #expect(try await queued() == 1, "the other instance still uses what it read before the endpoint existed")
            manual.advance(by: .seconds(1))
            try await WebhookDeliveryTests.event(second, "user.signed_up", client: client)
            #expect(try await queued() == 2, "a second later the other instance reads the endpoints again")
        } catch {
            await first.shutdown()
            await second.shutdown()
            await TestDatabase.drop(url)
            throw error
        }
        await first.shutdown()
        await second.shutdown()
        await TestDatabase.drop(url)
    }
}
