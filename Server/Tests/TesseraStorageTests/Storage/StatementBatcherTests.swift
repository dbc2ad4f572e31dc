import Synchronization
import Testing
import TesseraStorage

/// ``StatementBatcher``: concurrent requests answered by one statement for many of them, each from a statement that
/// began after it was made.
@Suite("Statement batcher")
struct StatementBatcherTests {
    /// A stand-in for the database: values by key, the batches it was asked for, and batches held until released.
    private final class Store: Sendable {
        private struct State {
            var values: [String: Int] = [:]
            var batches: [[String]] = []
            var held: [CheckedContinuation<Void, Never>] = []
            var holds = false
            /// The index of the batch that fails.
            var failing: Int?
        }
        private let state = Mutex(State())

        init(_ values: [String: Int]) { state.withLock { $0.values = values } }

        func set(_ key: String, _ value: Int) { state.withLock { $0.values[key] = value } }
        func hold() { state.withLock { $0.holds = true } }
        func fail(batch index: Int) { state.withLock { $0.failing = index } }
        var batches: [[String]] { state.withLock { $0.batches } }
        var heldCount: Int { state.withLock { $0.held.count } }

        /// Lets the held batches go on; later ones are held too.
        func releaseHeld() {
            let held = state.withLock { state in
                defer { state.held = [] }
                return state.held
            }
            for batch in held { batch.resume() }
        }

        /// Lets every held batch go on (and the next ones run at once).
        func release() {
            let held = state.withLock { state in
                state.holds = false
                defer { state.held = [] }
                return state.held
            }
            for batch in held { batch.resume() }
        }

        func fetch(_ keys: [String]) async throws -> [Int?] {
            struct Refused: Error {}
            let (holds, index) = state.withLock { state in
                state.batches.append(keys)
                return (state.holds, state.batches.count - 1)
            }
            if holds {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        guard state.holds else { return true }
                        state.held.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            // A statement of a cancelled task fails, as a database call does.
            try Task.checkCancellation()
            // Read after the hold: what a statement that ran then would see.
            return try state.withLock { state in
                if state.failing == index { throw Refused() }
                return keys.map { state.values[$0] }
            }
        }
    }

    /// Polls (yielding) until `condition` holds: the awaited event is the batcher's own state, not a time.
    private func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test("an idle batcher runs a request alone, at once; a key without a value is nil")
    func idle() async throws {
        let store = Store(["a": 1])
        let batcher = StatementBatcher<String, Int?> { try await store.fetch($0) }
        #expect(try await batcher.answer("a") == 1)
        #expect(try await batcher.answer("b") == nil)
        #expect(store.batches == [["a"], ["b"]])
    }

    @Test("lookups arriving while the batches run go together in the next one, each answered with its own value")
    func coalesces() async throws {
        let store = Store(["k0": 0, "k1": 1, "k2": 2, "k3": 3, "k4": 4, "k5": 5])
        let batcher = StatementBatcher<String, Int?>(maxBatch: 256, maxRunning: 1) { try await store.fetch($0) }
        store.hold()
        try await withThrowingTaskGroup(of: (String, Int?).self) { group in
            group.addTask { ("k0", try await batcher.answer("k0")) }
            await until { store.heldCount == 1 }
            for i in 1...5 { group.addTask { ("k\(i)", try await batcher.answer("k\(i)")) } }
            await until { batcher.waiting == 5 }
            store.release()
            for try await (key, value) in group { #expect(value == Int(key.dropFirst())) }
        }
        #expect(store.batches.count == 2)
        #expect(store.batches.first == ["k0"])
        #expect(Set(store.batches.last ?? []) == ["k1", "k2", "k3", "k4", "k5"], "the five waiting lookups in one statement")
        #expect(batcher.waiting == 0)
    }

    @Test("a batch holds at most maxBatch requests; two equal requests are two entries, each answered")
    func splits() async throws {
        let store = Store(["a": 1, "b": 2, "c": 3])
        let batcher = StatementBatcher<String, Int?>(maxBatch: 2, maxRunning: 1) { try await store.fetch($0) }
        store.hold()
        try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask { try await batcher.answer("first") }
            await until { store.heldCount == 1 }
            for key in ["a", "a", "b", "c"] { group.addTask { try await batcher.answer(key) } }
            await until { batcher.waiting == 4 }
            store.release()
            var values: [Int?] = []
            for try await value in group { values.append(value) }
            #expect(values.compactMap { $0 }.sorted() == [1, 1, 2, 3])
        }
        let later = Array(store.batches.dropFirst())
        #expect(later.allSatisfy { $0.count <= 2 }, "batches of at most two keys: \(later)")
        #expect(later.flatMap { $0 }.sorted() == ["a", "a", "b", "c"], "every request in a batch: \(later)")
    }

    @Test("a lookup asked while a batch runs is answered by a later statement: it sees a write made before it")
    func readsAfterItsCall() async throws {
        let store = Store(["device": 1])
        let batcher = StatementBatcher<String, Int?>(maxBatch: 256, maxRunning: 1) { try await store.fetch($0) }
        store.hold()
        try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask { try await batcher.answer("device") }
            await until { store.heldCount == 1 }
            // The running statement has begun; a write commits, then a lookup is asked.
            store.set("device", 2)
            let after = Task { try await batcher.answer("device") }
            await until { batcher.waiting == 1 }
            store.release()
            #expect(try await after.value == 2, "the later lookup did not take the running statement's answer")
            for try await _ in group {}
        }
        #expect(store.batches == [["device"], ["device"]])
    }

    @Test("a failed statement fails every lookup in it, and the batcher goes on")
    func failure() async throws {
        let store = Store(["a": 1, "b": 2])
        let batcher = StatementBatcher<String, Int?>(maxBatch: 256, maxRunning: 1) { try await store.fetch($0) }
        store.hold()
        store.fail(batch: 1)
        let results = await withTaskGroup(of: (String, Bool).self) { group in
            group.addTask { ("first", (try? await batcher.answer("a")) != nil) }
            await until { store.heldCount == 1 }
            for key in ["a", "b"] { group.addTask { (key, (try? await batcher.answer(key)) != nil) } }
            await until { batcher.waiting == 2 }
            store.release()
            var results: [String: Bool] = [:]
            for await (key, answered) in group { results[key] = answered }
            return results
        }
        #expect(results == ["first": true, "a": false, "b": false], "the second statement's two lookups failed, the first's did not")
        #expect(try await batcher.answer("b") == 2, "the next lookup runs")
        #expect(batcher.waiting == 0)
    }

    @Test("a run that answers another number of requests than it was given fails the batch instead of mismatching answers")
    func miscount() async throws {
        let batcher = StatementBatcher<String, Int> { keys in Array(repeating: 1, count: keys.count + 1) }
        await #expect(throws: (any Error).self) { try await batcher.answer("a") }
    }

    @Test("rounds: each key once per round, a key's later requests in later rounds, the batch's order kept")
    func rounds() {
        #expect(BatchRounds.split([String]()) == [])
        #expect(BatchRounds.split(["a", "b", "c"]) == [[0, 1, 2]])
        #expect(BatchRounds.split(["a", "b", "a", "a", "c", "b"]) == [[0, 1, 4], [2, 5], [3]])
    }

    @Test("a leader whose request is given up (its task cancelled) still answers the others of its batch")
    func leaderCancelled() async throws {
        let store = Store(["a": 1, "b": 2, "c": 3])
        let batcher = StatementBatcher<String, Int?>(maxBatch: 256, maxRunning: 1) { try await store.fetch($0) }
        store.hold()
        let first = Task { try await batcher.answer("a") }
        await until { store.heldCount == 1 }
        // b waits first, so it leads the next batch, with c.
        let leader = Task { try await batcher.answer("b") }
        await until { batcher.waiting == 1 }
        let other = Task { try await batcher.answer("c") }
        await until { batcher.waiting == 2 }
        store.releaseHeld()
        #expect(try await first.value == 1)
        await until { store.heldCount == 1 }
        #expect(store.batches.last.map(Set.init) == ["b", "c"])
        // The request that leads the running batch is given up; the batch goes on for c (and answers b too).
        leader.cancel()
        store.release()
        #expect(try await other.value == 3, "the other request of the leader's batch is answered")
        #expect(try await leader.value == 2)
    }
}
