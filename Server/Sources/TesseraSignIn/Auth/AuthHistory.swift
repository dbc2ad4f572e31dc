import TesseraCore

/// The authentication history of the user a result token names (`GET /v1/auth/history`).
package struct AuthHistory: Sendable {
    package let store: AuthChannelRepository
    package let devices: any DeviceAuthLookup
    package let clock: WallClock

    /// One page, newest first; `before` is a previous page's `nextCursor`.
    package func page(claims: ResultClaims, limit: Int, before: String?) async throws -> AuthHistoryPage {
        guard let device = try await devices.authTarget(deviceId: claims.deviceId), device.active, device.clientKey == claims.clientId else {
            throw AppError.tokenInvalid(detail: "The device that authenticated is revoked")
        }
        var cursor: (Int64, String)?
        if let before {
            let parts = before.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let at = Int64(parts[0]) else { throw AppError.invalidField("before", "before must be a nextCursor value") }
            cursor = (at, String(parts[1]))
        }
        let rows = try await store.history(userId: device.userId, before: cursor, limit: limit + 1)
        let now = clock.now()
        let items = rows.prefix(limit).map { stored in
            let channel = stored.settled(now: now)
            return AuthHistoryItem(
                channelId: channel.id, createdAt: channel.createdAt, endedAt: channel.endedAt, deviceId: channel.deviceId ?? "",
                clientKey: device.clientKey, connectIp: channel.connectIp, initiator: channel.initiator.rawValue, outcome: channel.outcome,
                code: channel.code, nodes: channel.nodes
            )
        }
        let next = rows.count > limit ? items.last.map { "\($0.createdAt)_\($0.channelId)" } : nil
        return AuthHistoryPage(items: Array(items), nextCursor: next)
    }
}
