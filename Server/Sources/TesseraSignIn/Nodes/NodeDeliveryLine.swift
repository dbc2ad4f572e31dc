import Synchronization

/// Deliveries to one node, one call at a time: while a call is out, what other requests want
/// delivered waits and goes out together in the next call (group commit). Each caller returns once
/// its own items were sent, so a sign-up still answers only after its device reached the nodes; under
/// load, many devices share one signed call, one node transaction and one receipt transaction.
package final class NodeDeliveryLine: Sendable {
    package init() {}

    private enum Turn { case lead, done }
    private struct Waiter {
        var items: [NodeSyncItem]
        var continuation: CheckedContinuation<Turn, Never>
    }
    private struct State {
        var busy = false
        var waiting: [Waiter] = []
    }
    private let state = Mutex(State())

    /// How many callers wait for the next call (for tests and diagnostics).
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Sends `items` with `send`: at once when the line is free, else with the next call. The caller
    /// that finds the line free leads: it sends its items and everything that waits, then hands the
    /// line to the first caller that arrived meanwhile.
    package func deliver(_ items: [NodeSyncItem], send: @Sendable ([NodeSyncItem]) async -> Void) async {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leads = state.withLock { state -> Bool in
                guard !state.busy else {
                    state.waiting.append(Waiter(items: items, continuation: continuation))
                    return false
                }
                state.busy = true
                return true
            }
            if leads { continuation.resume(returning: .lead) }
        }
        guard case .lead = turn else { return }
        let others = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        await send(items + others.flatMap(\.items))
        for other in others { other.continuation.resume(returning: .done) }
        let next = state.withLock { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
    }
}

/// One ``NodeDeliveryLine`` per node, made when first needed.
package final class NodeDeliveryLines: Sendable {
    package init() {}

    private let lines = Mutex([String: NodeDeliveryLine]())

    package func line(_ nodeId: String) -> NodeDeliveryLine {
        lines.withLock { lines in
            if let line = lines[nodeId] { return line }
            let line = NodeDeliveryLine()
            lines[nodeId] = line
            return line
        }
    }
}
