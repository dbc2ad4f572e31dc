import Logging
import Synchronization
import Testing
@testable import TesseraStorage

/// ``OutboxWorker`` records each delivery's fate the moment its attempt ended, not when its whole batch is done: a
/// message the peer took is settled while a slow one of the same batch is still being sent, so an instance killed
/// then repeats at most what was in flight (issue 40: a `kill -9` resent a whole delivered batch).
@Suite("Outbox worker: each delivery settled when its attempt ends")
struct OutboxWorkerSettlingTests {
    /// A queue of three deliveries whose attempts the test ends one by one; it records what was recorded, in order.
    /// (A stand-in for a peer: the worker's order of recording is what is under test, not a protocol.)
    final class StepQueue: DeliveryQueue {
        let recorded = Mutex<[String]>([])
        let claimed = Mutex(false)
        let gates: [String: AsyncStream<Void>]
        let openers: [String: AsyncStream<Void>.Continuation]

        init(ids: [String]) {
            var gates: [String: AsyncStream<Void>] = [:], openers: [String: AsyncStream<Void>.Continuation] = [:]
            for id in ids {
                let (stream, continuation) = AsyncStream<Void>.makeStream()
                gates[id] = stream
                openers[id] = continuation
            }
            self.gates = gates
            self.openers = openers
        }

        var name: String { "test outbox" }

        func claimDue(limit: Int, claimant: String) async throws -> [String] {
            claimed.withLock { claimed in
                defer { claimed = true }
                return claimed ? [] : gates.keys.sorted()
            }
        }

        func id(of delivery: String) -> String { delivery }

        func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
            await body()
        }

        func attempt(_ delivery: String, logger: Logger) async -> DeliveryFate {
            for await _ in gates[delivery]! { break }
            return .delivered
        }

        func record(_ fates: [(delivery: String, fate: DeliveryFate)], logger: Logger) async throws {
            recorded.withLock { $0.append(contentsOf: fates.map(\.delivery)) }
        }

        /// Lets `id`'s attempt end.
        func finish(_ id: String) { openers[id]?.yield() }
    }

    @Test("of a batch of three, the two that end first are recorded while the third is still being attempted")
    func settledOneByOne() async throws {
        let queue = StepQueue(ids: ["a", "b", "slow"])
        let worker = OutboxWorker(queue: queue, logger: Logger(label: "test"), pollInterval: .seconds(60))
        let draining = Task { await worker.drain() }
        queue.finish("b")
        queue.finish("a")
        let both = await eventuallyRecorded(queue, count: 2)
        #expect(Set(both) == ["a", "b"], "recorded while the slow delivery is still in flight: \(both)")
        queue.finish("slow")
        #expect(await draining.value == 3)
        #expect(queue.recorded.withLock { $0 }.last == "slow")
    }

    /// A queue of one delivery whose first `failures` recordings throw, as while the database restarts.
    final class FlakyRecordQueue: DeliveryQueue {
        struct Refused: Error {}
        let failures: Int
        let calls = Mutex(0)
        let recorded = Mutex<[String]>([])
        let claimed = Mutex(false)

        init(failures: Int) { self.failures = failures }

        var name: String { "flaky outbox" }

        func claimDue(limit: Int, claimant: String) async throws -> [String] {
            claimed.withLock { claimed in
                defer { claimed = true }
                return claimed ? [] : ["only"]
            }
        }

        func id(of delivery: String) -> String { delivery }

        func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
            await body()
        }

        func attempt(_ delivery: String, logger: Logger) async -> DeliveryFate { .delivered }

        func record(_ fates: [(delivery: String, fate: DeliveryFate)], logger: Logger) async throws {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            guard call > failures else { throw Refused() }
            recorded.withLock { $0.append(contentsOf: fates.map(\.delivery)) }
        }
    }

    @Test("a fate the database refused to record is recorded once it answers again (not left to its lease, which would send it twice)")
    func recordingRetried() async throws {
        let queue = FlakyRecordQueue(failures: 3)
        let worker = OutboxWorker(queue: queue, logger: Logger(label: "test"), pollInterval: .seconds(60))
        #expect(await worker.drain() == 1)
        #expect(queue.recorded.withLock { $0 } == ["only"])
        #expect(queue.calls.withLock { $0 } == 4, "three refusals, then the recording")
    }

    /// What was recorded once `count` deliveries were (awaiting the recording itself, bounded only as a guard).
    func eventuallyRecorded(_ queue: StepQueue, count: Int) async -> [String] {
        for _ in 0..<6000 {
            let recorded = queue.recorded.withLock { $0 }
            if recorded.count >= count { return recorded }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return queue.recorded.withLock { $0 }
    }
}
