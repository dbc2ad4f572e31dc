import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// UnifiedPush (an open standard on Web Push, RFC 8030): the device's push token is its endpoint URL
/// on a push server the user chose, and a push is one `POST` of the message to it. The server only
/// ever POSTs to endpoints under the client's allowed prefixes (``allows(_:prefixes:)``), checked when
/// the device registers the endpoint and again before each send, so a device cannot make the server
/// call an address the operator did not allow. 404 and 410 mean the endpoint is gone (the token is
/// cleared); 429 and 5xx are retried honouring `Retry-After`.
package final class UnifiedPushClient: Sendable {
    package let httpClient: HTTPClient
    package let clock: WallClock
    package let timeout: TimeAmount

    package init(httpClient: HTTPClient, clock: WallClock, timeout: TimeAmount = .seconds(30)) {
        self.httpClient = httpClient
        self.clock = clock
        self.timeout = timeout
    }

    /// An endpoint URL or an allowed prefix, reduced to what is compared: scheme, host, port (nil in
    /// a prefix: any port) and the percent-encoded path.
    package struct Location: Equatable, Sendable {
        package var scheme: String
        package var host: String
        package var port: Int?
        package var path: String

        /// Parses an http(s) URL without user info or fragment, whose path has no `.` or `..` segment.
        package init?(_ text: String, anyPort: Bool = false) {
            guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
                  let host = components.host?.lowercased(), !host.isEmpty, components.user == nil, components.password == nil,
                  components.fragment == nil, !components.path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." })
            else { return nil }
            self.scheme = scheme
            self.host = host
            self.port = anyPort ? nil : components.port ?? (scheme == "https" ? 443 : 80)
            self.path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        }

        /// An allowed prefix: `https://push.example.com/up/`, or `http://127.0.0.1:` for any port; no query.
        package init?(prefix text: String) {
            let anyPort = text.hasSuffix(":") && !text.hasSuffix("://")
            guard !text.contains("?"), let location = Location(anyPort ? String(text.dropLast()) : text, anyPort: anyPort) else { return nil }
            self = location
        }

        /// Whether the endpoint `endpoint` lies under this prefix.
        package func covers(_ endpoint: Location) -> Bool {
            scheme == endpoint.scheme && host == endpoint.host && (port == nil || port == endpoint.port) && endpoint.path.hasPrefix(path)
        }
    }

    /// Whether `endpoint` is a push endpoint under one of the allowed `prefixes`.
    package static func allows(_ endpoint: String, prefixes: [String]) -> Bool {
        guard let location = Location(endpoint) else { return false }
        return prefixes.contains { Location(prefix: $0)?.covers(location) == true }
    }

    /// The message: the type marker and the request ID, as JSON (the keys of the APNs payload and the FCM data).
    package static func payload(_ message: PushMessage) -> Data {
        let body = ["type": PushMessage.type, "requestId": message.requestId]
        return (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
    }

    /// Sends one push: `POST <endpoint>` with `TTL` (until the request expires) and `Urgency: high`.
    package func send(_ message: PushMessage, settings: ClientPushSettings) async throws -> PushOutcome {
        guard Self.allows(message.deviceToken, prefixes: settings.view.allowedEndpoints ?? []) else {
            return .rejected("the endpoint is not under the client's allowed UnifiedPush prefixes")
        }
        var request = HTTPClientRequest(url: message.deviceToken)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "ttl", value: String(max(0, (message.expiresAt - clock.now()) / 1000)))
        request.headers.add(name: "urgency", value: "high")
        request.body = .bytes(ByteBuffer(bytes: Self.payload(message)))
        let response = try await httpClient.execute(request, timeout: timeout)
        _ = try await response.body.collect(upTo: 64 * 1024)
        let status = Int(response.status.code)
        if status == 404 || status == 410 { return .tokenInvalid("\(status) endpoint gone") }
        return PushOutcome.common(status: status, reason: response.status.reasonPhrase, headers: response.headers)
    }
}
