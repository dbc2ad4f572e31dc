import Foundation
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// The courier's queue gauges, read from the outbox at a scrape, on SQLite and PostgreSQL.
@Suite("Metrics: courier queue")
struct CourierQueueMetricsTests {
    @Test("depth and the oldest waiting message's age follow the outbox; a delivery counts as sent by channel", arguments: TestDatabase.kinds)
    func queue(kind: TestDatabase) async throws {
        let manual = ManualClock(start: 1_800_000_000_000)
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            func gauges() async throws -> String {
                try await runtime.courier.recordQueue(now: manual.clock.now())
                return runtime.metrics.render()
            }
            #expect(try await gauges().contains("tessera_courier_queue_depth 0.0\n"))
            let outbox = runtime.outbox
            try await runtime.database.transaction { try await outbox.enqueue(MailFixtures.message("first@example.com"), in: $0) }
            manual.advance(by: .milliseconds(1500))
            try await runtime.database.transaction { try await outbox.enqueue(MailFixtures.message("second@example.com"), in: $0) }
            manual.advance(by: .seconds(1))
            let waiting = try await gauges()
            #expect(waiting.contains("tessera_courier_queue_depth 2.0\n"), "\(waiting)")
            #expect(waiting.contains("tessera_courier_oldest_pending_age_seconds 2.5\n"), "\(waiting)")
            #expect(await runtime.courier.drain() == 2)
            let drained = try await gauges()
            #expect(drained.contains("tessera_courier_queue_depth 0.0\n") && drained.contains("tessera_courier_oldest_pending_age_seconds 0.0\n"), "\(drained)")
            #expect(drained.contains(#"tessera_otp_sent_total{channel="email"} 2"#), "\(drained)")
        }
    }
}
