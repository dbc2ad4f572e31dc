import Synchronization

/// The SMTP sessions an ``SMTPClient`` keeps open between messages. RFC 5321 lets one session carry
/// many mail transactions, so a message sent while a session is idle skips the connection, the
/// greeting, EHLO, STARTTLS and AUTH, and QUIT.
///
/// Each session is a task that owns its connection: it takes queued messages one at a time, and
/// closes (with QUIT) when it has been idle for ``SMTPSettings/sessionIdleTimeout`` or has carried
/// ``SMTPSettings/messagesPerSession`` messages. A message is queued when no session is idle, and a
/// session is opened for it while fewer than ``SMTPSettings/maxSessions`` are open.
///
/// Failures: a session that cannot be opened fails one queued message with its error (so a server
/// that is down fails messages one by one, never leaves them waiting). A session that fails during
/// a transaction is closed; its message fails, unless the session had already carried a message and
/// the failure came before the message's content was sent (typically a server that closed the idle
/// connection): then the message is sent again, once, on a fresh session. A message is never sent
/// twice by the pool after its content went out.
package final class SMTPSessionPool: Sendable {
    /// A message waiting for, or carried by, a session; resumed exactly once.
    package struct Job: Sendable {
        package let message: SMTPMessage
        package let reply: CheckedContinuation<Void, any Error>
        /// Already retried once on a fresh session after a reused one failed.
        package var retried = false
    }

    private struct State {
        var queue: [Job] = []
        var idle: [Int: CheckedContinuation<Job?, Never>] = [:]
        /// Sessions told to end before they waited (their next wait returns nil at once).
        var expired: Set<Int> = []
        var open = 0
        /// Sessions opened that have not yet asked for a message: each will take a queued one.
        var starting: Set<Int> = []
        var nextSession = 0

        /// Opens a session if queued messages outnumber the sessions starting and one more is allowed.
        mutating func sessionToOpen(max: Int) -> Int? {
            guard queue.count > starting.count, open < max else { return nil }
            open += 1
            nextSession += 1
            starting.insert(nextSession)
            return nextSession
        }
    }

    private let state = Mutex(State())
    package let maxSessions: Int
    /// Runs one session until it ends (see ``SMTPClient``); `id` names it to ``next(session:)``.
    private let session: @Sendable (_ pool: SMTPSessionPool, _ id: Int) async -> Void

    package init(maxSessions: Int, session: @escaping @Sendable (_ pool: SMTPSessionPool, _ id: Int) async -> Void) {
        self.maxSessions = max(1, maxSessions)
        self.session = session
    }

    /// Sends `message` on an idle session, or queues it for the next one free.
    package func deliver(_ message: SMTPMessage) async throws {
        try await withCheckedThrowingContinuation { reply in
            submit(Job(message: message, reply: reply), front: false)
        }
    }

    /// Sessions open now, and messages waiting for one (for tests and diagnostics).
    package var statistics: (open: Int, idle: Int, queued: Int) { state.withLock { ($0.open, $0.idle.count, $0.queue.count) } }

    /// Hands `job` to an idle session, or queues it (opening a session if allowed).
    package func submit(_ job: Job, front: Bool) {
        enum Action { case handTo(CheckedContinuation<Job?, Never>), open(Int), wait }
        let action = state.withLock { state -> Action in
            if let id = state.idle.keys.max(), let waiter = state.idle.removeValue(forKey: id) {
                return .handTo(waiter)  // the newest idle session: the older ones may reach their idle timeout
            }
            if front { state.queue.insert(job, at: 0) } else { state.queue.append(job) }
            return state.sessionToOpen(max: maxSessions).map(Action.open) ?? .wait
        }
        switch action {
        case .handTo(let waiter): waiter.resume(returning: job)
        case .open(let id): start(id)
        case .wait: break
        }
    }

    /// The session's next message: a queued one, or the next submitted while it waits; nil once
    /// ``expire(session:)`` ends its wait, or when the session's task is cancelled. `delivered`, the
    /// reply to the message the session just carried, is resumed once the session is idle (or has
    /// its next message), so a sender that goes on to its next message finds the session free.
    package func next(session id: Int, after delivered: CheckedContinuation<Void, any Error>? = nil) async -> Job? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiter in
                let job = state.withLock { state -> Job?? in
                    state.starting.remove(id)
                    if state.expired.remove(id) != nil || Task.isCancelled { return .some(nil) }
                    if !state.queue.isEmpty { return .some(state.queue.removeFirst()) }
                    state.idle[id] = waiter
                    return .none
                }
                delivered?.resume()
                if let job { waiter.resume(returning: job) }
            }
        } onCancel: {
            expire(session: id)
        }
    }

    /// Ends the wait of session `id` (it has been idle too long, or is cancelled); if it is not
    /// waiting, its next wait ends at once.
    package func expire(session id: Int) {
        let waiter = state.withLock { state in
            let waiter = state.idle.removeValue(forKey: id)
            if waiter == nil { state.expired.insert(id) }
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Called by a session as it ends. `openFailure`: it could not be opened (it fails one queued
    /// message with that error). A session is opened for messages still queued.
    package func ended(session id: Int, openFailure: (any Error)?) {
        let (failed, reopen) = state.withLock { state -> (Job?, Int?) in
            state.open -= 1
            state.idle.removeValue(forKey: id)
            state.expired.remove(id)
            state.starting.remove(id)
            let failed = openFailure != nil && !state.queue.isEmpty ? state.queue.removeFirst() : nil
            return (failed, state.sessionToOpen(max: maxSessions))
        }
        if let failed, let openFailure { failed.reply.resume(throwing: openFailure) }
        if let reopen { start(reopen) }
    }

    private func start(_ id: Int) {
        let session = self.session
        Task { await session(self, id) }
    }
}

/// When a session's current step must be over: a transaction's deadline, or the end of its idle time.
package final class SMTPSessionDeadline: Sendable {
    package enum Kind: Sendable { case busy, idle }
    private let state: Mutex<(at: ContinuousClock.Instant, kind: Kind)>

    /// Armed from the start: the first step (opening the session) is timed from here.
    package init(_ after: Duration, _ kind: Kind) {
        state = Mutex((ContinuousClock.now.advanced(by: after), kind))
    }

    package func arm(_ after: Duration, _ kind: Kind) {
        let at = ContinuousClock.now.advanced(by: after)
        state.withLock { $0 = (at, kind) }
    }

    /// Watches the deadline until cancelled: a busy step past its deadline throws `timedOut`; an
    /// idle time that ran out calls `idleEnded` (and the session gets `quitTimeout` to say QUIT).
    package func watch(timedOut: @Sendable () -> SMTPError, quitTimeout: Duration, idleEnded: @Sendable () -> Void) async throws {
        while true {
            let armed = state.withLock { $0 }
            try await Task.sleep(until: armed.at, clock: .continuous)
            let expired = state.withLock { state -> Bool in
                guard state.at == armed.at, state.kind == armed.kind else { return false }
                if armed.kind == .idle { state = (ContinuousClock.now.advanced(by: quitTimeout), .busy) }
                return true
            }
            guard expired else { continue }
            if armed.kind == .busy { throw timedOut() }
            idleEnded()
        }
    }
}
