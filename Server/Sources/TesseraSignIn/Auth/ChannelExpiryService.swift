import Logging
import ServiceLifecycle

/// Ends channels whose lifetime passed (outcome `expired`) and tells their listeners, every second.
/// The conditional updates already refuse an expired channel; this makes the outcome visible.
package struct ChannelExpiryService: Service {
    package let channels: AuthChannels
    package let logger: Logger
    /// How often it looks (a cadence, not a timeout: whether a channel expired is decided on the injected clock).
    package var interval: Duration = .seconds(1)

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do { try await channels.expireDue() } catch {
                logger.warning("channel expiry failed", metadata: ["error": .string(String(describing: error))])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
