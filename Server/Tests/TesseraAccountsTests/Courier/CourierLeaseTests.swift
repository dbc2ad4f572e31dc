import Foundation
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// What happens to messages a courier had claimed when its instance died: they are sent again
/// after the (short) lease, by another worker, once; a live worker renews its leases.
@Suite("Courier leases")
struct CourierLeaseTests {
    @Test("a message claimed by a worker that died is claimed by another after 30 s, not 120 s, and delivered once", arguments: TestDatabase.kinds)
    func deadWorkersMessagesComeBack(kind: TestDatabase) async throws {
        let manual = ManualClock(start: 1_800_000_000_000)
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let outbox = runtime.outbox
            let message = MailFixtures.message("lost@example.com")
            try await runtime.database.transaction { try await outbox.enqueue(message, in: $0) }
            // Worker A claims it, then its process dies: no result is ever recorded.
            #expect(try await outbox.claimDue(limit: 10, claimant: "A").map(\.message.id) == [message.id])
            // While A's lease lasts, nobody else takes it.
            manual.advance(by: .seconds(29))
            #expect(try await outbox.claimDue(limit: 10, claimant: "B").isEmpty)
            #expect(await runtime.courier.drain() == 0)
            // Once it ran out, this instance's courier delivers it, once.
            manual.advance(by: .seconds(2))
            #expect(await runtime.courier.drain() == 1)
            #expect(try runtime.fileOutbox().filter { $0.to == "lost@example.com" }.count == 1)
            #expect(await runtime.courier.drain() == 0)
            #expect(try await outbox.counts() == .init(pending: 0, sent: 1, failed: 0))
        }
    }

    @Test("a worker still sending renews its leases; only the holder can renew", arguments: TestDatabase.kinds)
    func liveWorkerRenews(kind: TestDatabase) async throws {
        let manual = ManualClock(start: 1_800_000_000_000)
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let outbox = runtime.outbox
            let message = MailFixtures.message("slow@example.com")
            try await runtime.database.transaction { try await outbox.enqueue(message, in: $0) }
            #expect(try await outbox.claimDue(limit: 10, claimant: "A").count == 1)
            manual.advance(by: .seconds(20))
            #expect(try await outbox.renew(ids: [message.id], claimant: "B").isEmpty)
            #expect(try await outbox.renew(ids: [message.id], claimant: "A") == [message.id])
            // 40 s after the claim, 20 s after the renewal: still A's.
            manual.advance(by: .seconds(20))
            #expect(try await outbox.claimDue(limit: 10, claimant: "B").isEmpty)
            // 31 s after the renewal: free again.
            manual.advance(by: .seconds(11))
            #expect(try await outbox.claimDue(limit: 10, claimant: "B").count == 1)
            // A's late renewal no longer holds anything.
            #expect(try await outbox.renew(ids: [message.id], claimant: "A").isEmpty)
        }
    }
}
