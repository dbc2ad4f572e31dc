import Synchronization

/// Runs concurrent requests of one kind as one statement for many of them (issue 40): on PostgreSQL each
/// statement costs a round trip, a wake-up of a backend and postgres-nio's work per query, far more than the
/// row it reads or writes, so a busy instance reads (or conditionally writes) many rows in one statement
/// instead of one statement per request.
///
/// A request that finds fewer than `maxRunning` batches running starts one at once alone (an idle instance
/// answers as fast as before). Otherwise it waits, and the requests that wait go together, up to `maxBatch`, as
/// the next batch: when a batch ends, its leader hands the waiting requests to the first of them, whose task
/// runs the next one (no task is spawned).
///
/// Every answer comes from a statement that began after its request was made, so a read sees every write
/// committed before it, and a write is committed when it is answered, as with a statement of its own:
/// batching changes the cost, not what is read or written. Requests are not merged: two equal ones are two
/// entries of the batch, and `run` decides what they mean together.
package final class StatementBatcher<Request: Sendable, Answer: Sendable>: Sendable {
    /// Runs a batch: one answer per request, in their order.
    package typealias Run = @Sendable ([Request]) async throws -> [Answer]

    private typealias Waiter = CheckedContinuation<Resumption, any Error>

    /// What a waiting lookup is resumed with.
    private enum Resumption: Sendable {
        case answer(Answer)
        /// The waiter leads the next batch: these requests (its own first) and their waiters.
        case lead([Entry])
    }

    private struct Entry: Sendable {
        let request: Request
        let waiter: Waiter?
    }

    private struct State {
        var running = 0
        var waiting: [Entry] = []
    }

    private let state = Mutex(State())
    private let maxBatch: Int
    private let maxRunning: Int
    private let run: Run

    /// A batcher whose batches each hold at most `maxBatch` requests, at most `maxRunning` of them at once. One by
    /// default: a request that finds a batch running waits for it and goes in the next (larger batches, less CPU per
    /// request: on PostgreSQL at c=64, 1 instead of 2 gave 12 % more result-token introspections, 14 % more OTP sends
    /// and 4 % more TOTP checks per second).
    package init(maxBatch: Int = 256, maxRunning: Int = 1, run: @escaping Run) {
        precondition(maxBatch >= 1 && maxRunning >= 1)
        self.maxBatch = maxBatch
        self.maxRunning = maxRunning
        self.run = run
    }

    /// Requests waiting for the next batch (for tests, which await it rather than sleep).
    package var waiting: Int { state.withLock { $0.waiting.count } }

    /// The answer to `request`, from a batch that began after this call.
    package func answer(_ request: Request) async throws -> Answer {
        let leads = state.withLock { state -> Bool in
            guard state.running < maxRunning else { return false }
            state.running += 1
            return true
        }
        var batch = [Entry(request: request, waiter: nil)]
        if !leads {
            // Decided again under the lock that queues it: a batch that ended since the check above has not
            // seen this request waiting, and may have left a place free.
            let resumption = try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let leadsNow = state.withLock { state -> Bool in
                    if state.running < maxRunning {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(Entry(request: request, waiter: waiter))
                    return false
                }
                if leadsNow { waiter.resume(returning: .lead([Entry(request: request, waiter: nil)])) }
            }
            switch resumption {
            case .answer(let answer): return answer
            case .lead(let entries): batch = entries
            }
        }
        return try await lead(batch)
    }

    /// Runs one batch (the leader's own request first), answers its waiters, hands the next one on, and returns
    /// the leader's own answer.
    private func lead(_ batch: [Entry]) async throws -> Answer {
        let result: Result<[Answer], any Error>
        do {
            // In a task of its own: the batch answers others too, so its leader's cancellation (a request given up)
            // must not fail it.
            let requests = batch.map(\.request), run = self.run
            let answers = try await Task { try await run(requests) }.value
            guard answers.count == batch.count else { throw BatchAnswerCount(requests: batch.count, answers: answers.count) }
            result = .success(answers)
        } catch {
            result = .failure(error)
        }
        handOn()
        for (index, entry) in batch.enumerated() {
            guard let waiter = entry.waiter else { continue }
            switch result {
            case .success(let answers): waiter.resume(returning: .answer(answers[index]))
            case .failure(let error): waiter.resume(throwing: error)
            }
        }
        return try result.get()[0]
    }

    /// Starts the next batch with the requests waiting (led by the first of them), or counts this batch ended.
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
        // The leader's own entry goes without a waiter: it returns its answer itself.
        var entries = next
        entries[0] = Entry(request: next[0].request, waiter: nil)
        leader.resume(returning: .lead(entries))
    }
}

/// A batch's `run` answered another number of requests than it was given (a bug of the caller's `run`).
struct BatchAnswerCount: Error, CustomStringConvertible {
    let requests: Int
    let answers: Int
    var description: String { "a batch of \(requests) requests got \(answers) answers" }
}
