import SQLKit

/// Queues the pushes of a relying-party request in its transaction (for clients with push settings,
/// to the user's devices with a push token) and wakes this instance's ``PushService`` once committed.
package struct PushScheduler: RelyingPartyRequestPush {
    package let repository: any PushRepository
    package let devices: any DevicePushTokens
    package let service: PushService

    package init(repository: any PushRepository, devices: any DevicePushTokens, service: PushService) {
        self.repository = repository
        self.devices = devices
        self.service = service
    }

    package func schedule(_ channel: AuthChannelRecord, in sql: any SQLDatabase) async throws {
        guard let provider = try await repository.provider(clientId: channel.clientId, in: sql) else { return }
        let targets = try await devices.pushTargets(userId: channel.userId, provider: provider, in: sql)
        guard !targets.isEmpty else { return }
        try await repository.enqueue(channelId: channel.id, clientId: channel.clientId, deviceIds: targets, expiresAt: channel.expiresAt, in: sql)
    }

    package func scheduled() { service.wake() }
}
