import Foundation
import TesseraCore

/// What a Tessera push carries (and nothing more): its type marker and the ID of the relying
/// party's request. The details come from the server with a signed call.
public enum TesseraPush {
    /// The `type` of every Tessera push payload.
    public static let type = "tessera.auth-request"

    /// The payload of a UnifiedPush message (the JSON body the push server delivered to the app)
    /// as the `userInfo` ``TesseraClient/handlePush(userInfo:)`` takes: the same keys as the APNs
    /// payload and the FCM data. Empty when the message is not a JSON object.
    public static func userInfo(unifiedPushMessage message: Data) -> [AnyHashable: Any] {
        (try? JSONSerialization.jsonObject(with: message) as? [String: Any]) ?? [:]
    }

    /// The request ID in a push payload (APNs `userInfo`, FCM `data` or a UnifiedPush message), nil when the payload is not Tessera's.
    public static func requestId(in userInfo: [AnyHashable: Any]) -> String? {
        guard userInfo["type"] as? String == type, let id = userInfo["requestId"] as? String, !id.isEmpty else { return nil }
        return id
    }
}

extension TesseraClient {
    /// Gives the server this device's current push token (the APNs device token as hex, the FCM
    /// registration token, or the UnifiedPush endpoint URL, which must lie under one of the client's
    /// allowed prefixes), so that relying-party requests wake the device instead of waiting for its
    /// next ``pendingAuthRequests()``. Call it whenever the platform hands the app a new token; an
    /// empty token turns pushes off for the device. A signed call (`PUT /v1/devices/push-token`).
    public func updatePushToken(_ token: String, platform: PushProvider) async throws {
        let _: NoContent = try await call(
            "PUT", "/v1/devices/push-token", body: PushTokenUpdate(token: token, platform: platform), signedBy: try signingDeviceId()
        )
    }

    /// Handles a received push: reads the request ID from its payload and returns that pending
    /// request (fetched with the signed `GET /v1/auth/pending`, so who asks and why come from the
    /// server, not from the push). Nil when the payload is not Tessera's or the request is no
    /// longer pending (answered, cancelled, expired).
    public func handlePush(userInfo: [AnyHashable: Any]) async throws -> AuthChannelResponse? {
        guard let requestId = TesseraPush.requestId(in: userInfo) else { return nil }
        return try await pendingAuthRequests().first { $0.channelId == requestId }
    }
}
