import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TesseraCore

/// The APNs provider API over HTTP/2 with token-based authentication: an ES256 JWT (`kid` key ID,
/// `iss` team ID, `iat`) signed with the client's .p8 key, reused and made anew after
/// ``tokenLifetime`` (Apple accepts one for 20–60 min) on the injected clock.
package final class APNsClient: Sendable {
    package static let productionURL = "https://api.push.apple.com"
    package static let sandboxURL = "https://api.sandbox.push.apple.com"
    /// How long a provider token is reused: inside Apple's window, refreshed well before it ends.
    package static let tokenLifetime: Duration = .seconds(40 * 60)

    package let httpClient: HTTPClient
    package let clock: WallClock
    package let timeout: TimeAmount
    /// Provider tokens by team and key ID, with when they were made (ms).
    private let tokens = Mutex<[String: (token: String, issuedAt: Int64)]>([:])

    package init(httpClient: HTTPClient, clock: WallClock, timeout: TimeAmount = .seconds(30)) {
        self.httpClient = httpClient
        self.clock = clock
        self.timeout = timeout
    }

    private struct Header: Encodable { var alg = "ES256"; var kid: String }
    private struct Claims: Encodable { var iss: String; var iat: Int64 }

    /// The provider token for these settings, made anew when older than ``tokenLifetime``.
    package func providerToken(_ settings: ClientPushSettings) throws -> String {
        let teamId = settings.view.teamId ?? ""
        let keyId = settings.view.keyId ?? ""
        let cacheKey = teamId + "/" + keyId
        let now = clock.now()
        if let cached = tokens.withLock({ $0[cacheKey] }), now - cached.issuedAt < Self.tokenLifetime.millis, now >= cached.issuedAt {
            return cached.token
        }
        let key = try P256.Signing.PrivateKey(pemRepresentation: settings.privateKey)
        let input = try CompactJWT.signingInput(header: Header(kid: keyId), claims: Claims(iss: teamId, iat: now / 1000))
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        let token = input + "." + signature.base64URLEncodedString()
        tokens.withLock { $0[cacheKey] = (token, now) }
        return token
    }

    private func forgetToken(_ settings: ClientPushSettings) {
        _ = tokens.withLock { $0.removeValue(forKey: (settings.view.teamId ?? "") + "/" + (settings.view.keyId ?? "")) }
    }

    /// The payload: an alert the app localises (`loc-key`), the type marker and the request ID.
    package static func payload(_ message: PushMessage) -> Data {
        let body: [String: Any] = [
            "aps": ["alert": ["loc-key": "TESSERA_AUTH_REQUEST"], "mutable-content": 1],
            "type": PushMessage.type, "requestId": message.requestId,
        ]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }

    /// Sends one push: `POST /3/device/<token>`.
    package func send(_ message: PushMessage, settings: ClientPushSettings) async throws -> PushOutcome {
        let base = settings.view.baseURL ?? (settings.view.environment == .sandbox ? Self.sandboxURL : Self.productionURL)
        var request = HTTPClientRequest(url: base + "/3/device/" + message.deviceToken)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer " + (try providerToken(settings)))
        request.headers.add(name: "apns-topic", value: settings.view.topic ?? "")
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        request.headers.add(name: "apns-expiration", value: String(message.expiresAt / 1000))
        request.headers.add(name: "apns-collapse-id", value: message.requestId)
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: Self.payload(message)))
        let response = try await httpClient.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        let reason = (try? JSONDecoder().decode([String: String].self, from: Data(buffer: body)))?["reason"] ?? ""
        let status = Int(response.status.code)
        switch (status, reason) {
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"): return .tokenInvalid("\(status) \(reason)")
        case (403, "ExpiredProviderToken"), (403, "InvalidProviderToken"):
            forgetToken(settings)
            return .retry("\(status) \(reason)", after: nil)
        default: return PushOutcome.common(status: status, reason: reason, headers: response.headers)
        }
    }
}
