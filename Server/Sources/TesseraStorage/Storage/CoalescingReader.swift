import Synchronization

/// Answers concurrent lookups of one kind with one statement for many keys (issue 40): on PostgreSQL each
/// statement costs a round trip, a wake-up of a backend and postgres-nio's work per query, far more than the
/// row it reads, so a busy instance reads many keys in one statement instead of one statement per key.
///
/// A lookup that finds fewer than `maxRunning` batches running starts one at once with its key alone (an idle
/// instance answers as fast as before). Otherwise it waits, and the lookups that wait go together, up to
/// `maxBatch` keys, as the next batch: when a batch ends, its leader hands the waiting keys to the first of
/// them, whose task runs the next statement (no task is spawned).
///
/// Every answer comes from a statement that began after its lookup was asked, so a lookup sees every write
/// committed before it, as a statement of its own would: batching changes the cost, not what is read.
package final class CoalescingReader<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Reads the values of the keys (each key once); a key without a value is left out.
    package typealias Fetch = @Sendable ([Key]) async throws -> [Key: Value]

    private typealias Waiter = CheckedContinuation<Resumption, any Error>

    /// What a waiting lookup is resumed with.
    private enum Resumption: Sendable {
        case value(Value?)
        /// The waiter leads the next batch: these keys (its own first) and their waiters.
        case lead([Entry])
    }

    private struct Entry: Sendable {
        let key: Key
        let waiter: Waiter?
    }

    private struct State {
        var running = 0
        var waiting: [Entry] = []
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let maxRunning: Int
    private let fetch: Fetch

    /// A reader whose statements each read at most `maxBatch` keys, at most `maxRunning` of them at once.
    package init(maxBatch: Int = 256, maxRunning: Int = 2, fetch: @escaping Fetch) {
        precondition(maxBatch >= 1 && maxRunning >= 1)
        self.maxBatch = maxBatch
        self.maxRunning = maxRunning
        self.fetch = fetch
    }

    /// Lookups waiting for the next batch (for tests, which await it rather than sleep).
    package var waiting: Int { state.withLock { $0.waiting.count } }

    /// The value of `key` (nil: none), read by a statement that began after this call.
    package func value(for key: Key) async throws -> Value? {
        let leads = state.withLock { state -> Bool in
            guard state.running < maxRunning else { return false }
            state.running += 1
            return true
        }
        var batch = [Entry(key: key, waiter: nil)]
        if !leads {
            // Decided again under the lock that queues it: a batch that ended since the check above has not
            // seen this key waiting, and may have left a place free.
            let resumption = try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let leadsNow = state.withLock { state -> Bool in
                    if state.running < maxRunning {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(Entry(key: key, waiter: waiter))
                    return false
                }
                if leadsNow { waiter.resume(returning: .lead([Entry(key: key, waiter: nil)])) }
            }
            switch resumption {
            case .value(let value): return value
            case .lead(let entries): batch = entries
            }
        }
        return try await run(batch, own: key)
    }

    /// Runs one batch, answers its waiters, hands the next one on, and returns the leader's own value.
    private func run(_ batch: [Entry], own: Key) async throws -> Value? {
        var keys: [Key] = []
        keys.reserveCapacity(batch.count)
        var seen = Set<Key>()
        for entry in batch where seen.insert(entry.key).inserted { keys.append(entry.key) }
        let result: Result<[Key: Value], any Error>
        do { result = .success(try await fetch(keys)) } catch { result = .failure(error) }
        handOn()
        for entry in batch {
            guard let waiter = entry.waiter else { continue }
            switch result {
            case .success(let values): waiter.resume(returning: .value(values[entry.key]))
            case .failure(let error): waiter.resume(throwing: error)
            }
        }
        return try result.get()[own]
    }

    /// Starts the next batch with the keys waiting (led by the first of them), or counts this batch ended.
    private func handOn() {
        let next = state.withLock { state -> [Entry]? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            let count = min(maxBatch, state.waiting.count)
            let next = Array(state.waiting.prefix(count))
            state.waiting.removeFirst(count)
            return next
        }
        guard let next, let leader = next.first?.waiter else { return }
        // The leader's own entry goes without a waiter: it returns its value itself.
        var entries = next
        entries[0] = Entry(key: next[0].key, waiter: nil)
        leader.resume(returning: .lead(entries))
    }
}
