import Foundation
import Logging
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// A delivery whose endpoint this server could not read (its own storage failed, not the receiver) is
/// postponed: tried again after a flat 5 s however many attempts it has had, never given up for it,
/// and its endpoint is not disabled. A failure of the receiver after the schedule still gives it up.
@Suite("Webhook delivery: postponed by a storage failure")
struct WebhookPostponedTests {
    @Test("a postponed delivery past the last attempt is due again after 5 s, pending, its endpoint still enabled", arguments: TestDatabase.kinds)
    func postponedNeverGivesUp(kind: TestDatabase) async throws {
        let manual = ManualClock(start: 1_800_000_000_000)
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let client = try await runtime.makeTestClient()
            let created = try await runtime.webhookAdmin.create(
                clientKey: client.clientKey, CreateWebhookRequest(url: "http://127.0.0.1:9/hooks", eventTypes: ["*"])
            )
            let audit = runtime.repositories.audit
            try await runtime.database.transaction { sql in
                try await audit.append(AuditEvent("user.signed_up", actor: "system", clientId: client.id, userId: "usr_1"), in: sql)
            }
            let queue = runtime.webhooks.queue
            var claim = try #require(try await queue.repository.claimDue(limit: 10, claimant: "test").first)
            claim.attempts = WebhookDeliveries.retrySchedule.count + 5  // far past the last attempt
            try await queue.record([(claim, .postponed(error: "storage", after: .seconds(5)))], logger: Logger(label: "test"))

            let endpoint = try await runtime.webhookAdmin.endpoint(created.endpoint.id)
            #expect(endpoint.enabled && endpoint.disabledReason == nil)
            let delivery = try #require(try await runtime.webhookAdmin.deliveries(created.endpoint.id, limit: 5, before: nil).deliveries.first)
            #expect(delivery.status == "pending")
            manual.advance(by: .milliseconds(4_900))
            #expect(try await queue.repository.claimDue(limit: 10, claimant: "test").isEmpty)  // not before the 5 s
            manual.advance(by: .milliseconds(200))
            var again = try #require(try await queue.repository.claimDue(limit: 10, claimant: "test").first)
            #expect(again.id == claim.id)

            // The same attempt count with a failure of the receiver gives it up and disables the endpoint.
            again.attempts = claim.attempts
            try await queue.record([(again, .retry(error: "HTTP 503", status: 503))], logger: Logger(label: "test"))
            let disabled = try await runtime.webhookAdmin.endpoint(created.endpoint.id)
            #expect(!disabled.enabled && disabled.disabledReason == "retries-exhausted")
        }
    }
}
