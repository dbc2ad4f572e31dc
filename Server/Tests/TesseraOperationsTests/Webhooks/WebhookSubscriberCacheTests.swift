import Synchronization
import Testing
@testable import TesseraServer

/// The per-instance cache of each client's webhook subscribers (issue 40: no `webhook_endpoints` read at every
/// audited change): kept for its lifetime on the injected clock, cleared by this instance's changes, and never
/// keeping what was read while a change was being made.
@Suite("Webhook subscriber cache")
struct WebhookSubscriberCacheTests {
    final class Reads: Sendable {
        let count = Mutex(0)
        func read(_ endpoints: [String]) -> WebhookSubscriberCache.Subscribers {
            count.withLock { $0 += 1 }
            return endpoints.map { (endpointId: $0, eventTypes: ["*"]) }
        }
    }

    @Test("an entry serves its lifetime of the injected clock, per client; then the table is read again")
    func lifetime() async throws {
        let cache = WebhookSubscriberCache(lifetime: 1000), reads = Reads()
        #expect(try await cache.subscribers(clientId: "c1", now: 10_000) { reads.read(["whe_1"]) }.map(\.endpointId) == ["whe_1"])
        #expect(try await cache.subscribers(clientId: "c1", now: 10_999) { reads.read(["whe_2"]) }.map(\.endpointId) == ["whe_1"])
        #expect(reads.count.withLock { $0 } == 1)
        #expect(try await cache.subscribers(clientId: "c2", now: 10_999) { reads.read([]) }.isEmpty)
        #expect(reads.count.withLock { $0 } == 2)
        #expect(try await cache.subscribers(clientId: "c1", now: 11_000) { reads.read(["whe_2"]) }.map(\.endpointId) == ["whe_2"])
        // A clock set back does not make an old entry young.
        #expect(try await cache.subscribers(clientId: "c1", now: 9_000) { reads.read(["whe_3"]) }.map(\.endpointId) == ["whe_3"])
        #expect(reads.count.withLock { $0 } == 4)
    }

    @Test("clear() forgets every client; a read that a clear overtook is answered but not kept; lifetime 0 keeps nothing")
    func clearing() async throws {
        let cache = WebhookSubscriberCache(lifetime: 1000), reads = Reads()
        _ = try await cache.subscribers(clientId: "c1", now: 0) { reads.read([]) }
        cache.clear()
        #expect(try await cache.subscribers(clientId: "c1", now: 1) { reads.read(["whe_1"]) }.map(\.endpointId) == ["whe_1"])
        // An endpoint changed while the table was being read: what was read is not kept.
        _ = try await cache.subscribers(clientId: "c3", now: 2) {
            cache.clear()
            return reads.read(["whe_old"])
        }
        #expect(try await cache.subscribers(clientId: "c3", now: 3) { reads.read(["whe_new"]) }.map(\.endpointId) == ["whe_new"])
        #expect(reads.count.withLock { $0 } == 4)
        let never = WebhookSubscriberCache(lifetime: 0)
        for now in [0, 0, 1] as [Int64] { _ = try await never.subscribers(clientId: "c1", now: now) { reads.read([]) } }
        #expect(reads.count.withLock { $0 } == 7)
    }
}
