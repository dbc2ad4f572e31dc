import Logging
import ServiceLifecycle
import TesseraCore

/// The progress stream of a channel (`GET /v1/auth/channels/{id}/events`), and the service that
/// replays channel rows to this instance's listeners: what other instances wrote reaches them
/// within a poll interval. Run it in the service group.
package struct AuthEventRelay: Service {
    package let store: AuthChannelRepository
    package let hub: AuthEventHub
    package let clock: WallClock
    package let logger: Logger
    /// How often the rows of watched channels are read again (a cadence, not a timeout).
    package var interval: Duration = .seconds(1)

    /// Where a new listener's stream begins.
    package enum Replay: Sendable {
        /// Every event that already happened, in order.
        case all
        /// Only the latest (the channel's outcome if it has ended or expired): a listener that
        /// reconnects learns where the channel stands at once.
        case current
    }

    /// The channel's events: those that already happened (all, or the latest), then each new one as
    /// it happens, ending with the outcome (or when the channel expires). The stream stops listening
    /// when its consumer stops.
    package func events(channelId: String, replay: Replay = .all) async throws -> AuthProgressSequence {
        let (merged, input) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
        let token = hub.register(channelId, input)
        let hub = self.hub
        input.onTermination = { _ in hub.unregister(channelId, token) }
        guard let first = try await store.find(channelId) else {
            input.finish()
            throw AppError.authChannelUnknown()
        }
        // What happened before the listener came, then the live events.
        var past = first.events, startAt = 0
        if replay == .current, let latest = first.settled(now: clock.now()).events.last {
            past = [latest]
            // An outcome: no status is sent any more.
            startAt = latest.status.flatMap { AuthStatus.allCases.firstIndex(of: $0) } ?? AuthStatus.allCases.count
        }
        for event in past { input.yield(event) }
        return AuthProgressSequence(channelId: channelId, source: merged, input: input, store: store, expiresAt: first.expiresAt, startAt: startAt)
    }

    /// Waits until the channel's lifetime has passed on the injected clock, then hands `events` what
    /// the row says (its outcome: expired, unless it ended before), so that its listener learns of the
    /// expiry when it happens rather than at the next replay. Run it beside the stream.
    package func expiry(of events: AuthProgressSequence) async throws {
        try await clock.sleep(.milliseconds(max(0, events.expiresAt - clock.now())))
        guard let channel = try await store.find(events.channelId) else { return }
        for event in channel.settled(now: max(clock.now(), events.expiresAt)).events { events.input.yield(event) }
    }

    /// Every `interval`, publishes the stored events of each channel someone listens to here.
    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            await replayWatched()
        }
    }

    /// Publishes each watched channel's stored events (listeners drop what they already had).
    package func replayWatched() async {
        for channelId in hub.watchedChannels {
            do {
                guard let channel = try await store.find(channelId) else { continue }
                for event in channel.settled(now: clock.now()).events { hub.publish(channelId, event) }
            } catch {
                logger.warning("channel replay failed", metadata: ["channel": .string(channelId), "error": .string(String(describing: error))])
            }
        }
    }
}
