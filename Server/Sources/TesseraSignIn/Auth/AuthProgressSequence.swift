import TesseraCore

/// A channel's events as its listener gets them: every status exactly once and in its order, then
/// the outcome, then the end. Fed by the hub and by row replays, which may repeat or skip ahead;
/// a status that skips ahead (the listener joined mid-way) makes it read the row, which each step
/// writes before it announces itself, and send what is missing first. Runs in the consumer's task.
package struct AuthProgressSequence: AsyncSequence, Sendable {
    package typealias Element = AuthEvent

    package let channelId: String
    package let source: AsyncStream<AuthEvent>
    /// The hub's end of `source`: finished when the outcome went out, which stops the listening.
    package let input: AsyncStream<AuthEvent>.Continuation
    package let store: AuthChannelRepository
    /// When the channel expires (``AuthEventRelay/expiry(of:)`` waits for it).
    package var expiresAt: Int64 = .max
    /// The index in ``AuthStatus/allCases`` of the first status to deliver: statuses before it are
    /// not sent (a listener that asked only for the current state).
    package var startAt = 0

    package func makeAsyncIterator() -> Iterator {
        Iterator(channelId: channelId, source: source.makeAsyncIterator(), input: input, store: store, startAt: startAt)
    }

    package struct Iterator: AsyncIteratorProtocol {
        package let channelId: String
        package var source: AsyncStream<AuthEvent>.Iterator
        package let input: AsyncStream<AuthEvent>.Continuation
        package let store: AuthChannelRepository
        private var nextStatus = 0
        private var ended = false
        private var ready: [AuthEvent] = []

        package init(
            channelId: String, source: AsyncStream<AuthEvent>.Iterator, input: AsyncStream<AuthEvent>.Continuation, store: AuthChannelRepository,
            startAt: Int = 0
        ) {
            self.channelId = channelId
            self.source = source
            self.input = input
            self.store = store
            nextStatus = startAt
        }

        package mutating func next() async -> AuthEvent? {
            while true {
                if !ready.isEmpty { return ready.removeFirst() }
                if ended {
                    input.finish()
                    return nil
                }
                guard let event = await source.next() else { return nil }
                await accept(event)
            }
        }

        private static func index(of status: AuthStatus?) -> Int? { status.flatMap { AuthStatus.allCases.firstIndex(of: $0) } }

        private mutating func send(_ event: AuthEvent) {
            guard !ended else { return }
            if let index = Self.index(of: event.status), index == nextStatus {
                ready.append(event)
                nextStatus += 1
            } else if event.outcome != nil {
                ready.append(event)
                ended = true
            }
        }

        private mutating func accept(_ event: AuthEvent) async {
            let index = Self.index(of: event.status)
            if let index, index < nextStatus { return }
            if event.status == nil && event.outcome == nil { return }
            if index == nextStatus {
                send(event)
            } else if let channel = try? await store.find(channelId) {
                for stored in channel.events where stored.outcome == nil { send(stored) }
                if let index, index == nextStatus { send(event) }
                if event.outcome != nil { send(event) }
            }
        }
    }
}
