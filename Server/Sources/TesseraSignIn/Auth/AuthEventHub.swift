import Foundation
import Synchronization
import TesseraCore

/// Delivers a channel's events to the streams listening on this instance the moment they happen.
/// Listeners on other instances catch up from the channel row (``AuthChannelRecord/events``), which
/// every step also writes and ``AuthEventRelay`` replays.
package final class AuthEventHub: Sendable {
    private let listeners = Mutex<[String: [Int: AsyncStream<AuthEvent>.Continuation]]>([:])
    /// The listeners' keys: a counter, not a `UUID` (Foundation reads /dev/urandom for each, three
    /// system calls).
    private let nextId = Atomic<Int>(0)

    /// Registers a continuation that receives the channel's future events on this instance.
    package func register(_ channelId: String, _ continuation: AsyncStream<AuthEvent>.Continuation) -> Int {
        let id = nextId.add(1, ordering: .relaxed).newValue
        listeners.withLock { $0[channelId, default: [:]][id] = continuation }
        return id
    }

    package func unregister(_ channelId: String, _ id: Int) {
        listeners.withLock { listeners in
            listeners[channelId]?[id] = nil
            if listeners[channelId]?.isEmpty == true { listeners[channelId] = nil }
        }
    }

    /// How many streams on this instance listen to the channel.
    package func listenerCount(_ channelId: String) -> Int { listeners.withLock { $0[channelId]?.count ?? 0 } }

    /// The channels someone on this instance listens to.
    package var watchedChannels: [String] { listeners.withLock { Array($0.keys) } }

    package func publish(_ channelId: String, _ event: AuthEvent) {
        let targets = listeners.withLock { $0[channelId].map { Array($0.values) } ?? [] }
        for target in targets { target.yield(event) }
    }
}
