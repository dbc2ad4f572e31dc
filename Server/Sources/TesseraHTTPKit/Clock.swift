import Foundation
import Synchronization

/// Wall-clock time, injected so tests can move it.
public struct WallClock: Sendable {
    /// Milliseconds since 1970.
    public var now: @Sendable () -> Int64
    /// Waits `duration` on this clock: the system clock sleeps; a ``ManualClock`` waits until the
    /// test has moved it that far. Throws `CancellationError` when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> Int64, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.now = now
        self.sleep = sleep
    }

    /// The system clock.
    public static let system = WallClock { nowMillis() }

    /// The system time in milliseconds since 1970.
    public static func nowMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// A clock that tests move by hand.
public final class ManualClock: Sendable {
    private struct State {
        var value: Int64
        /// Tasks waiting in ``WallClock/sleep`` until the clock reaches their deadline.
        var sleepers: [UUID: Sleeper] = [:]
    }

    private enum Sleeper {
        case waiting(deadline: Int64, CheckedContinuation<Void, any Error>)
        case cancelled
    }

    private let state: Mutex<State>

    public init(start: Int64 = 1_800_000_000_000) { state = Mutex(State(value: start)) }

    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.value += duration.millis
            var due: [CheckedContinuation<Void, any Error>] = []
            for (id, sleeper) in state.sleepers {
                if case .waiting(let deadline, let continuation) = sleeper, deadline <= state.value {
                    state.sleepers[id] = nil
                    due.append(continuation)
                }
            }
            return due
        }
        for continuation in due { continuation.resume() }
    }

    /// How many tasks wait in ``WallClock/sleep`` on this clock (tests await this before moving it).
    public var waitingSleepers: Int {
        state.withLock { $0.sleepers.values.filter { if case .waiting = $0 { true } else { false } }.count }
    }

    public var clock: WallClock { WallClock(now: { [self] in state.withLock { $0.value } }, sleep: { [self] in try await sleep(for: $0) }) }

    private func sleep(for duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if case .cancelled = state.sleepers[id] {
                        state.sleepers[id] = nil
                        return .failure(CancellationError())
                    }
                    guard duration > .zero else { return .success(()) }
                    state.sleepers[id] = .waiting(deadline: state.value + duration.millis, continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiting: CheckedContinuation<Void, any Error>? = state.withLock { state in
                switch state.sleepers[id] {
                case .waiting(_, let continuation):
                    state.sleepers[id] = nil
                    return continuation
                case .cancelled, nil:
                    // Cancelled before it started waiting: the wait refuses at once.
                    state.sleepers[id] = .cancelled
                    return nil
                }
            }
            waiting?.resume(throwing: CancellationError())
        }
    }
}
