import Logging
import ServiceLifecycle

/// Ends channels whose lifetime passed (outcome `expired`) and tells their listeners, every second.
/// The conditional updates already refuse an expired channel; this makes the outcome visible.
struct ChannelExpiryService: Service {
    let auth: AuthService
    let logger: Logger
    var interval: Duration = .seconds(1)

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do { try await auth.expireDue() } catch {
                logger.warning("channel expiry failed", metadata: ["error": .string(String(describing: error))])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
