import SQLKit
import Synchronization

/// Group commit for SQLite's single writer connection: the writes of concurrent requests that
/// queue up while one batch runs are run together in the next transaction, each in a savepoint of
/// its own, and each request is answered only after that transaction's COMMIT returned. So a write
/// that is acknowledged is in the database file (its WAL), and a batch costs one commit however many
/// writes it holds.
///
/// Writes go to a writer task, which runs every queued write as one batch, wakes their tasks, and
/// takes the next batch at once, until none is queued (then it waits to be woken). A read that finds
/// nothing running runs at once in its own task, without waiting for another task (what keeps the
/// introspection of result tokens fast); whatever queued meanwhile then goes to the writer task.
/// A write that fails (it throws) is rolled back to its savepoint alone; a failed COMMIT fails
/// every write of the batch. A batch of one runs as the write would alone: statements autocommit, a
/// transaction is `BEGIN IMMEDIATE` … `COMMIT`.
final class GroupCommit: Sendable {
    /// Who runs batches: at most one at a time holds the right to (a request's task or the writer
    /// task); the others queue.
    private struct State {
        var pending: [GroupCommitWrite] = []
        /// A batch runs, or is about to.
        var running = false
        /// The writer task, waiting to be handed the next batches (resumed with false to stop it).
        var parked: CheckedContinuation<Bool, Never>?
        var writerStarted = false
        var closed = false
        /// ``close()`` callers, woken when no batch runs any more.
        var closing: [CheckedContinuation<Void, Never>] = []
        var batches = 0

        /// Takes every queued write for the next batch.
        mutating func takeBatch() -> [GroupCommitWrite] {
            defer { if !pending.isEmpty { pending = []; batches += 1 } }
            return pending
        }

        /// The writer task, to be woken (it is parked) or started, for the batches queued.
        mutating func wakeWriter() -> Start {
            if let parked {
                self.parked = nil
                return .wake(parked)
            }
            writerStarted = true
            return .start
        }

        /// No batch runs any more: what to wake for ``close()``.
        mutating func stopRunning() -> [CheckedContinuation<Void, Never>] {
            running = false
            defer { closing = [] }
            return closing
        }
    }

    private let state = Mutex(State())
    private let sql: any SQLDatabase
    /// The same connection, refusing statements that write: what read-only jobs get.
    private let readOnlySQL: any SQLDatabase

    /// Runs a batch's own statements (BEGIN, SAVEPOINT, RELEASE, COMMIT…) on the connection directly:
    /// through SQLKit each was serialised and wrapped in rows machinery, four or more per write.
    private let control: @Sendable (String) async throws -> Void

    init(sql: any SQLDatabase, readOnlySQL: any SQLDatabase, control: @escaping @Sendable (String) async throws -> Void) {
        self.sql = sql
        self.readOnlySQL = readOnlySQL
        self.control = control
    }

    /// Runs `body` in the next batch; `transaction` makes it atomic when it runs alone too; a
    /// `readOnly` body runs in the batch without a savepoint (it has nothing to roll back).
    func run<T: Sendable>(
        transaction: Bool, readOnly: Bool = false, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let job = GroupCommitWrite(transaction: transaction, readOnly: readOnly) { sql in try await body(sql) }
        let start = try state.withLock { state throws(GroupCommitClosed) -> Start in
            guard !state.closed else { throw GroupCommitClosed() }
            state.pending.append(job)
            guard !state.running else { return .queued }
            state.running = true
            return readOnly ? .inline : state.wakeWriter()
        }
        switch start {
        case .queued: break
        case .wake(let writer): writer.resume(returning: true)
        case .start: startWriter()
        case .inline:
            // Nothing ran: this task runs its read itself, without waiting for another task.
            let batch = state.withLock { $0.takeBatch() }
            await runBatch(batch)
            handOver()
            for other in batch where other !== job { other.signal() }
            return try Self.value(job.outcome(), as: T.self)
        }
        await job.wait()
        return try Self.value(job.outcome(), as: T.self)
    }

    /// What a queued job does: wait for the batch that runs, wake or start the writer task, or
    /// (a read, when nothing runs) run itself.
    private enum Start {
        case queued, wake(CheckedContinuation<Bool, Never>), start, inline
    }

    private func startWriter() {
        Task.detached { await self.write() }   // detached: no request's task-local values
    }

    /// After a read's own batch: the jobs queued meanwhile go to the writer task (woken before the
    /// batch's other tasks, so it is not queued behind them), or no batch runs any more.
    private func handOver() {
        let (next, closing) = state.withLock { state -> (Start?, [CheckedContinuation<Void, Never>]) in
            guard !state.pending.isEmpty else { return (nil, state.stopRunning()) }
            return (state.wakeWriter(), [])
        }
        switch next {
        case .wake(let writer): writer.resume(returning: true)
        case .start: startWriter()
        case .queued, .inline, nil: for waiter in closing { waiter.resume() }
        }
    }

    /// Returns once the writes queued so far have run and no batch runs; later writes throw.
    func close() async {
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            let (parked, done) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, Bool) in
                state.closed = true
                defer { state.parked = nil }
                if state.running { state.closing.append(closed) }
                return (state.parked, !state.running)
            }
            parked?.resume(returning: false)
            if done { closed.resume() }
        }
    }

    /// The writer task: runs the batches handed over to it one after the other, each as soon as the
    /// one before is done, and waits (parked) when none is queued. (Until session 15 each
    /// batch was run by a request's task, which then handed the next one to the task of a queued
    /// request by waking it; that wake-up queued on the executor behind the batch's answers while
    /// the database stood still: 8 % fewer TOTP verifications per second. Tried: a thread of its
    /// own for this task, as a task executor: the same. Writes run by the task of a request that
    /// found nothing running: as slow as before, since under load the writer then parks often.)
    private func write() async {
        while true {
            let batch = state.withLock { $0.takeBatch() }
            if !batch.isEmpty {
                await runBatch(batch)
                for job in batch { job.signal() }
                continue
            }
            let more = await withCheckedContinuation { writer in
                let (now, closing) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    if !state.pending.isEmpty { return (true, []) }
                    let closing = state.stopRunning()
                    if state.closed { return (false, closing) }
                    state.parked = writer
                    return (nil, closing)
                }
                for waiter in closing { waiter.resume() }
                if let now { writer.resume(returning: now) }
            }
            if !more { return }
        }
    }

    /// The result of `run`'s body, as the type the body returned (it can only be that type).
    private static func value<T>(_ result: any Sendable, as type: T.Type) throws -> T {
        guard let value = result as? T else { throw GroupCommitLost() }
        return value
    }

    /// Writes queued for the next batch, and batches run so far (for tests and diagnostics).
    var statistics: (queued: Int, batches: Int) { state.withLock { ($0.pending.count, $0.batches) } }

    /// Whether ``close()`` was called.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether the writer task was started (a batch was handed over to it).
    var writerStarted: Bool { state.withLock { $0.writerStarted } }

    private func runBatch(_ batch: [GroupCommitWrite]) async {
        guard batch.count > 1 else {
            for job in batch { await job.runAlone(job.readOnly ? readOnlySQL : sql) }
            return
        }
        do {
            try await control("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.fail(error) }
            return
        }
        var failure: (any Error)?
        for job in batch where failure == nil {
            if job.readOnly {
                _ = await job.runInBatch(readOnlySQL)
                continue
            }
            do {
                try await control("SAVEPOINT write")
                if !(await job.runInBatch(sql)) { try await control("ROLLBACK TO write") }
                try await control("RELEASE write")
            } catch {
                failure = error   // the transaction is in an unknown state: none of the batch is kept
            }
        }
        if failure == nil {
            do { try await control("COMMIT") } catch { failure = error }
        }
        if let failure {
            try? await control("ROLLBACK")
            for job in batch { job.fail(failure) }
        }
    }
}

/// One queued write and its result, with the one-shot wake-up of the task that queued it.
///
/// Not generic: its result is kept as `any Sendable` and cast back once by ``GroupCommit/run(transaction:readOnly:_:)``.
/// A generic write class was reached only through `any Database`, so never specialized, and every
/// write looked up the metadata of the class, its state, its `Mutex` and its `Result` for its type at
/// run time: about 2 % of a TOTP verification's CPU.
final class GroupCommitWrite: Sendable {
    private struct State {
        var result: Result<any Sendable, any Error>?
        var done = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let transaction: Bool
    /// Only reads: runs in the batch without a savepoint.
    let readOnly: Bool
    private let body: @Sendable (any SQLDatabase) async throws -> any Sendable
    private let state = Mutex(State())

    init(transaction: Bool, readOnly: Bool = false, body: @escaping @Sendable (any SQLDatabase) async throws -> any Sendable) {
        self.transaction = transaction
        self.readOnly = readOnly
        self.body = body
    }

    /// The write's result (or its error).
    func outcome() throws -> any Sendable {
        guard let result = state.withLock({ $0.result }) else { throw GroupCommitLost() }
        return try result.get()
    }

    /// Runs the write as it would run alone; keeps its result.
    func runAlone(_ sql: any SQLDatabase) async {
        let body = self.body
        let result: Result<any Sendable, any Error>
        do {
            result = .success(transaction ? try await inTransaction(sql, begin: "BEGIN IMMEDIATE", body) : try await body(sql))
        } catch {
            result = .failure(error)
        }
        state.withLock { $0.result = result }
    }

    /// Runs the write inside the batch's transaction; false if it threw (roll back its savepoint).
    func runInBatch(_ sql: any SQLDatabase) async -> Bool {
        let result: Result<any Sendable, any Error>
        do { result = .success(try await body(sql)) } catch { result = .failure(error) }
        state.withLock { $0.result = result }
        if case .success = result { return true }
        return false
    }

    /// Replaces the result with `error` (the batch did not commit).
    func fail(_ error: any Error) {
        state.withLock { $0.result = .failure(error) }
    }

    /// Wakes the write's task (its batch committed or failed), now or as soon as it waits.
    func signal() {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            state.done = true
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the write's batch committed or failed.
    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.done { state.waiter = continuation }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}

/// A write finished without a result (cannot happen: every batch sets one).
struct GroupCommitLost: Error {}

/// A write queued after the database closed.
struct GroupCommitClosed: Error, CustomStringConvertible {
    var description: String { "the database is closed" }
}
