import Logging
import ServiceLifecycle
import TesseraCore

/// The progress stream of a channel (`GET /v1/auth/channels/{id}/events`), and the service that
/// replays channel rows to this instance's listeners: what other instances wrote reaches them
/// within a poll interval. Run it in the service group.
struct AuthEventRelay: Service {
    let store: AuthChannelStore
    let hub: AuthEventHub
    let clock: WallClock
    let logger: Logger
    /// How often the rows of watched channels are read again (a cadence, not a timeout).
    var interval: Duration = .seconds(1)

    /// The channel's events: those that already happened, then each new one as it happens, ending
    /// with the outcome (or when the channel expires). The stream stops listening when its consumer stops.
    func events(channelId: String) async throws -> AuthProgressSequence {
        let (merged, input) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
        let token = hub.register(channelId, input)
        let hub = self.hub
        input.onTermination = { _ in hub.unregister(channelId, token) }
        guard let first = try await store.find(channelId) else {
            input.finish()
            throw AppError(.authChannelUnknown, .notFound, "No such authentication channel")
        }
        // What happened before the listener came, then the live events.
        for event in first.events { input.yield(event) }
        return AuthProgressSequence(channelId: channelId, source: merged, input: input, store: store)
    }

    /// Every `interval`, publishes the stored events of each channel someone listens to here.
    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            await replayWatched()
        }
    }

    /// Publishes each watched channel's stored events (listeners drop what they already had).
    func replayWatched() async {
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
