import Synchronization

/// One round of node calls: whether it has its outcome, and which answers are worth checking.
///
/// The nodes' answers often arrive together, and checking one (an Ed25519 verification, about 60 µs
/// on the bench machine) is most of the server's work on it. So at most as many answers are checked
/// at a time as the quorum still needs: an answer beyond those waits, and is checked only if
/// one of them fails, or dropped unchecked once the round is settled.
package final class QuorumRound: Sendable {
    private struct State {
        var settled = false
        var checking = 0
        var verified = 0
        var waiting: [CheckedContinuation<Bool, Never>] = []
    }

    private let quorum: Int
    private let state = Mutex(State())

    package init(quorum: Int) {
        self.quorum = quorum
    }

    /// Whether the round has its outcome: an answer arriving now is neither checked nor counted.
    package var isSettled: Bool { state.withLock { $0.settled } }

    /// Answers waiting in ``admit()`` (for tests).
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Ends the round: every answer still waiting is dropped.
    package func settle() {
        let dropped = state.withLock { state in
            state.settled = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in dropped { continuation.resume(returning: false) }
    }

    /// Whether to check an answer now (then report it with ``finished(verified:)``). Waits while the
    /// answers being checked, with those verified, would make the quorum; false once the round is
    /// settled. Every way a round ends settles it, so a wait always ends.
    package func admit() async -> Bool {
        await withCheckedContinuation { continuation in
            let admitted: Bool? = state.withLock { state in
                if state.settled { return false }
                if state.checking + state.verified < quorum {
                    state.checking += 1
                    return true
                }
                state.waiting.append(continuation)
                return nil
            }
            if let admitted { continuation.resume(returning: admitted) }
        }
    }

    /// The check of an admitted answer is done; a failed one lets a waiting answer be checked instead.
    package func finished(verified: Bool) {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
            state.checking -= 1
            if verified { state.verified += 1 }
            guard !state.settled, !state.waiting.isEmpty, state.checking + state.verified < quorum else { return nil }
            state.checking += 1
            return state.waiting.removeFirst()
        }
        next?.resume(returning: true)
    }
}
