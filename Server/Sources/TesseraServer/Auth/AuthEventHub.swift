import Foundation
import TesseraCore

/// Delivers a channel's events to the streams listening on this instance the moment they happen.
/// Listeners on other instances catch up from the channel row (``AuthChannelRecord/events``), which
/// every step also writes.
final class AuthEventHub: @unchecked Sendable {
    private let lock = NSLock()
    private var listeners: [String: [UUID: AsyncStream<AuthEvent>.Continuation]] = [:]

    /// Registers a continuation that receives the channel's future events on this instance.
    func register(_ channelId: String, _ continuation: AsyncStream<AuthEvent>.Continuation) -> UUID {
        let id = UUID()
        lock.withLock { listeners[channelId, default: [:]][id] = continuation }
        return id
    }

    func unregister(_ channelId: String, _ id: UUID) {
        lock.withLock {
            listeners[channelId]?[id] = nil
            if listeners[channelId]?.isEmpty == true { listeners[channelId] = nil }
        }
    }

    /// How many streams on this instance listen to the channel.
    func listenerCount(_ channelId: String) -> Int { lock.withLock { listeners[channelId]?.count ?? 0 } }

    func publish(_ channelId: String, _ event: AuthEvent) {
        let targets = lock.withLock { listeners[channelId].map { Array($0.values) } ?? [] }
        for target in targets { target.yield(event) }
    }
}
