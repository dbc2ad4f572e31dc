import TesseraCore

/// The hosted page's progress stream: the current state first, then each step as it happens, ending
/// after the final one. With a channel, its events (``AuthEventRelay``); without one (no such user,
/// or no active device), `waiting` until the channel would have expired and then `expired`, on the
/// injected clock: the same events at the same times as for a user who does not answer.
package struct SignInEvents: AsyncSequence, Sendable {
    package typealias Element = SignInEvent

    package enum Source: Sendable {
        case channel(AuthProgressSequence)
        case noChannel(AsyncStream<AuthEvent>)
    }

    package let source: Source
    /// Runs beside the stream (``ServerSentEvents``): ends it when the channel's lifetime has passed.
    package let deadline: @Sendable () async throws -> Void

    /// The events of a channel, ended by its expiry on time.
    package static func channel(_ events: AuthProgressSequence, relay: AuthEventRelay) -> SignInEvents {
        SignInEvents(source: .channel(events), deadline: { try await relay.expiry(of: events) })
    }

    /// No channel: `waiting` now, `expired` at `end` on `clock` (at once if `end` has passed).
    package static func withoutChannel(until end: Int64, clock: WallClock) -> SignInEvents {
        let (stream, input) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
        let expired = AuthEvent(outcome: .expired, code: ErrorCode.authChannelExpired.rawValue, at: end)
        input.yield(clock.now() >= end ? expired : AuthEvent(status: .createChannel, at: clock.now()))
        return SignInEvents(source: .noChannel(stream)) {
            try await clock.sleep(.milliseconds(Swift.max(0, end - clock.now())))
            input.yield(expired)
        }
    }

    package func makeAsyncIterator() -> Iterator {
        switch source {
        case .channel(let events): Iterator(source: .channel(events.makeAsyncIterator()))
        case .noChannel(let events): Iterator(source: .noChannel(events.makeAsyncIterator()))
        }
    }

    package struct Iterator: AsyncIteratorProtocol {
        package enum Source {
            case channel(AuthProgressSequence.Iterator)
            case noChannel(AsyncStream<AuthEvent>.Iterator)
        }

        package var source: Source
        private var ended = false

        package init(source: Source) { self.source = source }

        package mutating func next() async -> SignInEvent? {
            guard !ended else { return nil }
            let event: AuthEvent?
            switch source {
            case .channel(var iterator):
                event = await iterator.next()
                source = .channel(iterator)
            case .noChannel(var iterator):
                event = await iterator.next()
                source = .noChannel(iterator)
            }
            guard let event else { return nil }
            let shown = SignInEvent(event)
            ended = shown.status.isFinal
            return shown
        }
    }
}
