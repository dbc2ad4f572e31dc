import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import _CryptoExtras

/// FCM HTTP v1: the service account's key signs an RS256 JWT assertion, exchanged for an OAuth 2.0
/// access token (JWT bearer grant) that is reused until shortly before it expires (injected clock);
/// then `POST /v1/projects/{id}/messages:send`.
package final class FCMClient: Sendable {
    package static let defaultBaseURL = "https://fcm.googleapis.com"
    package static let defaultTokenURL = "https://oauth2.googleapis.com/token"
    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    package let httpClient: HTTPClient
    package let clock: WallClock
    package let timeout: TimeAmount
    /// Access tokens by service account, with when they expire (ms).
    private let tokens = Mutex<[String: (token: String, expiresAt: Int64)]>([:])

    package init(httpClient: HTTPClient, clock: WallClock, timeout: TimeAmount = .seconds(30)) {
        self.httpClient = httpClient
        self.clock = clock
        self.timeout = timeout
    }

    private struct Header: Encodable { var alg = "RS256"; var typ = "JWT" }
    private struct Claims: Encodable { var iss: String; var sub: String; var aud: String; var scope: String; var iat: Int64; var exp: Int64 }
    private struct TokenAnswer: Decodable { var access_token: String; var expires_in: Int? }

    /// Why a token could not be had (no secret in it).
    package struct TokenError: Error, CustomStringConvertible {
        package var status: Int
        package var description: String { "FCM token endpoint answered \(status)" }
    }

    /// The signed JWT assertion for the token endpoint.
    package func assertion(_ settings: ClientPushSettings, tokenURL: String) throws -> String {
        let email = settings.view.clientEmail ?? ""
        let now = clock.now() / 1000
        let input = try CompactJWT.signingInput(
            header: Header(), claims: Claims(iss: email, sub: email, aud: tokenURL, scope: Self.scope, iat: now, exp: now + 3600)
        )
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: settings.privateKey)
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Data(signature.rawRepresentation).base64URLEncodedString()
    }

    /// An access token for the service account, fetched when none is cached or it is about to expire.
    package func accessToken(_ settings: ClientPushSettings) async throws -> String {
        let tokenURL = settings.view.tokenURL ?? Self.defaultTokenURL
        let cacheKey = (settings.view.clientEmail ?? "") + " " + tokenURL
        let now = clock.now()
        if let cached = tokens.withLock({ $0[cacheKey] }), cached.expiresAt > now { return cached.token }
        var request = HTTPClientRequest(url: tokenURL)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try assertion(settings, tokenURL: tokenURL))
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await httpClient.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok, let answer = try? JSONDecoder().decode(TokenAnswer.self, from: Data(buffer: body)) else {
            throw TokenError(status: Int(response.status.code))
        }
        // Refreshed a minute before it runs out.
        let expiresAt = now + Int64(max(60, answer.expires_in ?? 3600) - 60) * 1000
        tokens.withLock { $0[cacheKey] = (answer.access_token, expiresAt) }
        return answer.access_token
    }

    /// The message: a data message with the type marker and the request ID, high priority, living
    /// until the request expires.
    package func payload(_ message: PushMessage) -> Data {
        let ttl = max(0, (message.expiresAt - clock.now()) / 1000)
        let body: [String: Any] = [
            "message": [
                "token": message.deviceToken,
                "data": ["type": PushMessage.type, "requestId": message.requestId],
                "android": ["priority": "high", "ttl": "\(ttl)s", "collapse_key": message.requestId],
            ] as [String: Any],
        ]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }

    /// Sends one push.
    package func send(_ message: PushMessage, settings: ClientPushSettings) async throws -> PushOutcome {
        let token: String
        do { token = try await accessToken(settings) } catch let error as TokenError {
            return error.status == 429 || error.status >= 500 ? .retry(error.description, after: nil) : .rejected(error.description)
        }
        let base = settings.view.baseURL ?? Self.defaultBaseURL
        var request = HTTPClientRequest(url: base + "/v1/projects/" + (settings.view.projectId ?? "") + "/messages:send")
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer " + token)
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: payload(message)))
        let response = try await httpClient.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        let status = Int(response.status.code)
        let text = String(buffer: body)
        if status == 404 || text.contains("\"UNREGISTERED\"") { return .tokenInvalid("\(status) UNREGISTERED") }
        if status == 401 {
            _ = tokens.withLock { $0.removeValue(forKey: (settings.view.clientEmail ?? "") + " " + (settings.view.tokenURL ?? Self.defaultTokenURL)) }
            return .retry("401 UNAUTHENTICATED", after: nil)
        }
        let reason = (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])
            .flatMap { ($0["error"] as? [String: Any])?["status"] as? String } ?? ""
        return PushOutcome.common(status: status, reason: reason, headers: response.headers)
    }
}
