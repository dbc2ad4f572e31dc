import SQLKit
import Synchronization

/// Group commit for SQLite's single writer connection: the writes of concurrent requests that
/// queue up while one batch runs are run together in the next transaction, each in a savepoint of
/// its own, and each request is answered only after that transaction's COMMIT returned. So a write
/// that is acknowledged is in the database file (its WAL), and a batch costs one commit however many
/// writes it holds.
///
/// One task at a time leads: it takes every queued write, runs them as one batch, and then hands the
/// lead to the owner of the first write that queued meanwhile, so no request's task drains the
/// queue for others for long. A write that fails (it throws) is rolled back to its savepoint alone;
/// a failed COMMIT fails every write of the batch. A batch of one runs as the write would alone:
/// statements autocommit, a transaction is `BEGIN IMMEDIATE` … `COMMIT`.
final class GroupCommit: Sendable {
    private struct State {
        var pending: [GroupCommitWrite] = []
        var leading = false
        var batches = 0
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
        let leads = state.withLock { state in
            state.pending.append(job)
            defer { state.leading = true }
            return !state.leading
        }
        // A write waits once: its batch committed, or it is handed the lead and runs the next batch,
        // which holds its own write (it is the first queued one).
        if !leads, await job.wait() == .done { return try Self.value(job.outcome(), as: T.self) }
        let batch = state.withLock { state in
            defer { state.pending = []; state.batches += 1 }
            return state.pending
        }
        await runBatch(batch)
        let next = state.withLock { state -> GroupCommitWrite? in
            if state.pending.isEmpty { state.leading = false }
            return state.pending.first
        }
        next?.signal(.lead)
        return try Self.value(job.outcome(), as: T.self)
    }

    /// The result of `run`'s body, as the type the body returned (it can only be that type).
    private static func value<T>(_ result: any Sendable, as type: T.Type) throws -> T {
        guard let value = result as? T else { throw GroupCommitLost() }
        return value
    }

    /// Writes queued for the next batch, and batches run so far (for tests and diagnostics).
    var statistics: (queued: Int, batches: Int) { state.withLock { ($0.pending.count, $0.batches) } }

    private func runBatch(_ batch: [GroupCommitWrite]) async {
        guard batch.count > 1 else {
            for job in batch {
                await job.runAlone(job.readOnly ? readOnlySQL : sql)
                job.signal(.done)
            }
            return
        }
        do {
            try await control("BEGIN IMMEDIATE")
        } catch {
            for job in batch { job.fail(error); job.signal(.done) }
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
        for job in batch { job.signal(.done) }
    }
}

/// What a queued write is told: its batch committed (or failed), or it is to lead the next one.
enum GroupCommitSignal: Sendable {
    case done
    case lead
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
        var signal: GroupCommitSignal?
        var waiter: CheckedContinuation<GroupCommitSignal, Never>?
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

    /// Wakes the write's task, now or as soon as it waits.
    func signal(_ signal: GroupCommitSignal) {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            if state.waiter == nil { state.signal = signal }
            return state.waiter
        }
        waiter?.resume(returning: signal)
    }

    func wait() async -> GroupCommitSignal {
        await withCheckedContinuation { continuation in
            let signal = state.withLock { state in
                defer { state.signal = nil }
                if state.signal == nil { state.waiter = continuation }
                return state.signal
            }
            if let signal { continuation.resume(returning: signal) }
        }
    }
}

/// A write finished without a result (cannot happen: every batch sets one).
struct GroupCommitLost: Error {}
