import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// Deliveries isolated per endpoint (issue 40 item 6): at most ``SQLWebhookRepository/inFlightPerEndpoint`` deliveries
/// to one endpoint are in flight at once, so a receiver that hangs with many due events holds that many of the worker's
/// 32 slots, not all of them until its timeout.
@Suite("Webhooks: a limit of deliveries in flight per endpoint")
struct WebhookEndpointLimitTests {
    @Test("40 events for a receiver that never answers, then one for a healthy receiver: 4 of the 40 in flight, and the healthy event delivered meanwhile", arguments: TestDatabase.kinds)
    func hangingReceiverHoldsFourSlots(kind: TestDatabase) async throws {
        try await WebhookDeliveryTests.withReceiver { receiver in
            let manual = WebhookDeliveryTests.clock()
            // A timeout longer than the test's own guard: only the limit can let the healthy event through.
            try await withTestRuntime(kind, clock: manual.clock, configure: { $0.webhooksTimeout = .seconds(600); $0.webhooksPollInterval = .milliseconds(100) }) { runtime in
                let healthy = try await runtime.makeTestClient(), stuck = try await runtime.makeTestClient()
                let good = try await WebhookDeliveryTests.endpoint(runtime, healthy, receiver)
                let silent = try WebhookDeliveryTests.SilentListener()
                defer { silent.close() }
                let hanging = try await runtime.webhookAdmin.create(
                    clientKey: stuck.clientKey, CreateWebhookRequest(url: "http://127.0.0.1:\(silent.port)/hooks", eventTypes: ["*"])
                )
                try receiver.setNow(manual.clock.now())
                for _ in 0..<40 { try await WebhookDeliveryTests.event(runtime, "login.completed", client: stuck) }
                let draining = Task { await runtime.webhooks.drain() }
                @Sendable func attempted() async -> Int {
                    let deliveries = (try? await runtime.webhookAdmin.deliveries(hanging.endpoint.id, limit: 100, before: nil).deliveries) ?? []
                    return deliveries.filter { $0.attempts > 0 }.count
                }
                let four = await eventually { await attempted() == SQLWebhookRepository.inFlightPerEndpoint }
                let first = await attempted()
                #expect(four, "four deliveries to the hanging receiver in flight: \(first)")
                try await WebhookDeliveryTests.event(runtime, "login.completed", client: healthy)
                let delivered = await eventually {
                    (try? await runtime.webhookAdmin.deliveries(good.endpoint.id, limit: 10, before: nil).deliveries.map(\.status)) == ["delivered"]
                }
                #expect(delivered, "the healthy receiver's event delivered while the other receiver hangs with 40 due")
                #expect(try receiver.records().count == 1)
                let later = await attempted()
                #expect(later == SQLWebhookRepository.inFlightPerEndpoint, "still only four to the hanging receiver: \(later)")
                silent.close()
                _ = await draining.value
            }
        }
    }
}
