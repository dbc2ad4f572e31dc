import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// `tessera_push_deliveries_total{provider,outcome}` counts each delivery attempt by how it ended.
@Suite("Metrics: push deliveries")
struct PushMetricsTests {
    @Test("503 then 201 to a UnifiedPush endpoint: one retry and one delivered")
    func retryThenDelivered() async throws {
        try await UnifiedPushFixtures.withEndpoint(script: ["m": ["503"]]) { _, base in
            let manual = PushFixtures.clock()
            try await withTestRuntime(.sqlite, clock: manual.clock) { runtime in
                let fixture = try await UnifiedPushFixtures.fixture(runtime, endpoint: base + "m")
                _ = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                manual.advance(by: .seconds(3))
                #expect(await runtime.push.drain() == 1)
                let text = runtime.metrics.render()
                #expect(text.contains(#"tessera_push_deliveries_total{provider="unifiedpush",outcome="retry"} 1"#), "\(text)")
                #expect(text.contains(#"tessera_push_deliveries_total{provider="unifiedpush",outcome="delivered"} 1"#), "\(text)")
                #expect(text.contains(#"tessera_push_deliveries_total{provider="apns",outcome="delivered"} 0"#), "\(text)")
            }
        }
    }
}
