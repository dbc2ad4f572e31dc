import SQLKit
import TesseraCore

/// The named device queries the push domain uses; the devices domain owns `devices.push_token`.
package protocol DevicePushTokens: Sendable {
    /// The user's active devices that have a push token for `provider` (or, for APNs and FCM, one
    /// whose provider the app did not say), read inside the caller's transaction.
    func pushTargets(userId: String, provider: PushProvider, in sql: any SQLDatabase) async throws -> [String]
    /// Sets the device's push token and its provider (the signed `PUT /v1/devices/push-token`);
    /// an empty token turns pushes off for the device.
    func setPushToken(deviceId: String, token: String, platform: PushProvider, at time: Int64) async throws
    /// The push token of an active device; nil when it has none or is not active.
    func pushToken(deviceId: String) async throws -> String?
    /// Clears the device's push token when it is still `token` (the provider said it is no longer
    /// valid): the device falls back to polling until it gives a new one.
    func clearPushToken(deviceId: String, token: String, at time: Int64) async throws
}

extension SQLDeviceRepository: DevicePushTokens {
    package func pushTargets(userId: String, provider: PushProvider, in sql: any SQLDatabase) async throws -> [String] {
        try await sql.raw(
            """
            SELECT id FROM devices WHERE user_id = \(bind: userId) AND status = 'active' AND push_token <> ''
              AND (push_platform = \(bind: provider.rawValue)\(unsafeRaw: provider == .unifiedpush ? "" : " OR push_platform = ''")) ORDER BY id
            """
        ).all().map { try $0.decode(column: "id", as: String.self) }
    }

    package func setPushToken(deviceId: String, token: String, platform: PushProvider, at time: Int64) async throws {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE devices SET push_token = \(bind: token), push_platform = \(bind: platform.rawValue), push_changed_at = \(bind: time),
                    push_cleared_at = NULL
                WHERE id = \(bind: deviceId) AND status = 'active'
                """
            ).run()
        }
    }

    package func pushToken(deviceId: String) async throws -> String? {
        let row = try await database.read { sql in
            try await sql.raw("SELECT push_token FROM devices WHERE id = \(bind: deviceId) AND status = 'active'").first()
        }
        guard let token = try row?.decode(column: "push_token", as: String.self), !token.isEmpty else { return nil }
        return token
    }

    package func clearPushToken(deviceId: String, token: String, at time: Int64) async throws {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE devices SET push_token = '', push_changed_at = \(bind: time), push_cleared_at = \(bind: time)
                WHERE id = \(bind: deviceId) AND push_token = \(bind: token)
                """
            ).run()
        }
    }
}
