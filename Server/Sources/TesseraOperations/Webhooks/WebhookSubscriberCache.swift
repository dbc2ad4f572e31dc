import Synchronization

/// Each client's enabled endpoints and their event types, kept by an instance for ``lifetime`` milliseconds of the
/// injected clock, so that an audited change does not read `webhook_endpoints` again (on PostgreSQL a statement of
/// every login step and every OTP send, although most clients have no endpoint). This instance's own changes to the
/// endpoints clear it at once; another instance's reach it within ``lifetime`` (`webhooks.endpointCacheMs`; 0 keeps
/// nothing, every change reads the table). An entry read while a change was being made is not kept: a generation
/// counts the clears, and an entry read under an older one is dropped.
package final class WebhookSubscriberCache: Sendable {
    /// One client's subscribers as read.
    package typealias Subscribers = [(endpointId: String, eventTypes: [String])]

    private struct Entry {
        var readAt: Int64
        var subscribers: Subscribers
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var generation = 0
    }

    /// How long an entry is used, in milliseconds (0: never).
    package let lifetime: Int64
    /// The most clients kept; past it, the cache starts empty again.
    package static let capacity = 10_000
    private let state = Mutex(State())

    /// A cache whose entries live `lifetime` milliseconds.
    package init(lifetime: Int64 = 1000) {
        self.lifetime = lifetime
    }

    /// The subscribers of `clientId` read at most ``lifetime`` before `now`; else `read()`'s, kept when no clear came
    /// in between.
    package func subscribers(clientId: String, now: Int64, read: () async throws -> Subscribers) async throws -> Subscribers {
        guard lifetime > 0 else { return try await read() }
        let (cached, generation) = state.withLock { state in (state.entries[clientId], state.generation) }
        if let cached, now - cached.readAt < lifetime, now >= cached.readAt { return cached.subscribers }
        let fresh = try await read()
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= Self.capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[clientId] = Entry(readAt: now, subscribers: fresh)
        }
        return fresh
    }

    /// Forgets every entry (an endpoint was created, changed, disabled or deleted by this instance).
    package func clear() {
        state.withLock { state in
            state.entries.removeAll(keepingCapacity: true)
            state.generation += 1
        }
    }
}
