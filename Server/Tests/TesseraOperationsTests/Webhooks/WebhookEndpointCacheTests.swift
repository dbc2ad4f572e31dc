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
        let manual = WebhookDeliveryTests.clock()
        try await withTwoPostgresInstances(clock: manual.clock) { first, second in
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
        }
    }
}
