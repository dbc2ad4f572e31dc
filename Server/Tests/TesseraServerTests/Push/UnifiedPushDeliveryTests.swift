import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TesseraCore
@testable import TesseraServer

/// UnifiedPush delivery against a real loopback endpoint (a Hummingbird server that answers scripted
/// statuses): the push arrives once with the courier's guarantees, a gone endpoint (404/410) clears the
/// token, and the server never POSTs outside the client's allowed prefixes.
@Suite("Push delivery: UnifiedPush")
struct UnifiedPushDeliveryTests {
    /// A UnifiedPush endpoint on 127.0.0.1: `POST /up/{id}` answers the id's scripted statuses first
    /// (`503`, `429@120` adds `Retry-After: 120`), then 201, and records every request.
    final class Endpoint: Sendable {
        struct Received: Sendable {
            var id: String
            var status: Int
            var headers: HTTPFields
            var body: Data
        }

        private let script: Mutex<[String: [String]]>
        private let log = Mutex<[Received]>([])

        init(script: [String: [String]]) { self.script = Mutex(script) }

        var received: [Received] { log.withLock { $0 } }

        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.post("up/{id}") { request, context -> Response in
                let id = try context.parameters.require("id")
                let body = try await request.body.collect(upTo: 65_536)
                let next = self.script.withLock { script -> String in
                    guard var statuses = script[id], !statuses.isEmpty else { return "201" }
                    let first = statuses.removeFirst()
                    script[id] = statuses
                    return first
                }
                let parts = next.split(separator: "@")
                let status = Int(parts[0]) ?? 500
                self.log.withLock { $0.append(Received(id: id, status: status, headers: request.headers, body: Data(buffer: body))) }
                var headers = HTTPFields()
                if parts.count == 2, let name = HTTPField.Name("Retry-After") { headers[name] = String(parts[1]) }
                return Response(status: HTTPResponse.Status(code: status), headers: headers)
            }
            return router
        }
    }

    /// Runs `body` with an endpoint listening on 127.0.0.1 and its base URL (`http://127.0.0.1:PORT/up/`).
    static func withEndpoint(script: [String: [String]] = [:], _ body: @escaping @Sendable (Endpoint, String) async throws -> Void) async throws {
        let endpoint = Endpoint(script: script)
        let app = Application(router: endpoint.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
        try await app.test(.live) { http in
            try await body(endpoint, "http://127.0.0.1:\(try #require(http.port))/up/")
        }
    }

    static let settings = PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: ["http://127.0.0.1:"]))

    /// A client with UnifiedPush settings and a user whose device registered `endpoint`.
    static func fixture(_ runtime: TesseraRuntime, endpoint: String, name: String = "alice") async throws -> PushDeliveryTests.Fixture {
        let fixture = try await PushDeliveryTests.fixture(runtime, settings: Self.settings, name: name)
        try await SQLDeviceRepository(database: runtime.database).setPushToken(deviceId: fixture.deviceId, token: endpoint, platform: .unifiedpush)
        return fixture
    }

    @Test("503 then 201: the push is sent again after the backoff and arrives once, with only the request ID and type", arguments: TestDatabase.kinds)
    func retriedAndDeliveredOnce(kind: TestDatabase) async throws {
        try await Self.withEndpoint(script: ["a": ["503"]]) { endpoint, base in
            let manual = PushDeliveryTests.clock()
            try await withTestRuntime(kind, clock: manual.clock) { runtime in
                let fixture = try await Self.fixture(runtime, endpoint: base + "a")
                let requestId = try await PushDeliveryTests.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)  // 503
                #expect(await runtime.push.drain() == 0)  // not due before the backoff
                manual.advance(by: .seconds(3))
                #expect(await runtime.push.drain() == 1)  // 201
                #expect(await runtime.push.drain() == 0)
                #expect(endpoint.received.map(\.status) == [503, 201])
                #expect(try await runtime.repositories.push.counts() == ["sent": 1])
                let push = try #require(endpoint.received.last)
                let payload = try #require(try JSONSerialization.jsonObject(with: push.body) as? [String: String])
                #expect(payload == ["type": PushMessage.type, "requestId": requestId])
                #expect(push.headers[.contentType] == "application/json")
                #expect(HTTPField.Name("Urgency").flatMap { push.headers[$0] } == "high")
                let ttl = try #require(HTTPField.Name("TTL").flatMap { push.headers[$0] }.flatMap { Int($0) })
                #expect(ttl > 0 && ttl <= 600)
                let text = String(decoding: push.body, as: UTF8.self)
                for personal in ["Example Shop", "198.51.100.7", fixture.userKey, "alice"] { #expect(!text.contains(personal)) }
            }
        }
    }

    @Test("429 with Retry-After: the next try waits for it", arguments: TestDatabase.kinds)
    func retryAfterHonoured(kind: TestDatabase) async throws {
        try await Self.withEndpoint(script: ["a": ["429@120"]]) { endpoint, base in
            let manual = PushDeliveryTests.clock()
            try await withTestRuntime(kind, clock: manual.clock, configure: { $0.channelLifetime = .seconds(600) }) { runtime in
                let fixture = try await Self.fixture(runtime, endpoint: base + "a")
                _ = try await PushDeliveryTests.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                manual.advance(by: .seconds(60))
                #expect(await runtime.push.drain() == 0)  // the backoff alone (2 s) would have allowed it
                manual.advance(by: .seconds(61))
                #expect(await runtime.push.drain() == 1)
                #expect(endpoint.received.map(\.status) == [429, 201])
                #expect(try await runtime.repositories.push.counts() == ["sent": 1])
            }
        }
    }

    @Test("404 and 410 (endpoint gone) clear the device's token; the next request is not pushed", arguments: TestDatabase.kinds)
    func goneEndpointClearsToken(kind: TestDatabase) async throws {
        try await Self.withEndpoint(script: ["a": ["404"], "b": ["410"]]) { endpoint, base in
            try await withTestRuntime(kind, clock: PushDeliveryTests.clock().clock) { runtime in
                let first = try await Self.fixture(runtime, endpoint: base + "a", name: "alice")
                let second = try await PushDeliveryTests.user(runtime, client: first.client, name: "bob")
                let devices = SQLDeviceRepository(database: runtime.database)
                try await devices.setPushToken(deviceId: second.deviceId, token: base + "b", platform: .unifiedpush)
                let requestId = try await PushDeliveryTests.request(runtime, first)
                _ = try await PushDeliveryTests.request(runtime, second)
                #expect(await runtime.push.drain() == 2)
                #expect(Set(endpoint.received.map { "\($0.id) \($0.status)" }) == ["a 404", "b 410"])
                #expect(try await devices.pushToken(deviceId: first.deviceId) == nil)
                #expect(try await devices.pushToken(deviceId: second.deviceId) == nil)
                #expect(try await runtime.repositories.push.counts() == ["dropped": 2])
                // The device still finds the request by polling; the next one is not pushed.
                let pending = try await runtime.auth.device.pending(deviceId: first.deviceId, client: first.client)
                #expect(pending.requests.map(\.channelId) == [requestId])
                _ = try await PushDeliveryTests.request(runtime, first)
                #expect(await runtime.push.drain() == 0)
                #expect(endpoint.received.count == 2)
            }
        }
    }

    @Test("an endpoint outside the allowed prefixes is never sent to (prefixes changed after it was registered); nor an APNs or untyped token")
    func notSentOutsideAllowedPrefixes() async throws {
        try await Self.withEndpoint { endpoint, base in
            try await withTestRuntime(.sqlite, clock: PushDeliveryTests.clock().clock) { runtime in
                let fixture = try await Self.fixture(runtime, endpoint: base + "a")
                let other = try await PushDeliveryTests.user(runtime, client: fixture.client, name: "bob")  // a token of no stated platform
                _ = try await runtime.pushAdmin.set(
                    PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: ["https://push.example.com/"])),
                    clientKey: fixture.client.clientKey
                )
                _ = try await PushDeliveryTests.request(runtime, fixture)
                _ = try await PushDeliveryTests.request(runtime, other)
                #expect(await runtime.push.drain() == 1)
                #expect(endpoint.received.isEmpty)
                #expect(try await runtime.repositories.push.counts() == ["failed": 1])
            }
        }
    }

    @Test("allowed prefixes: scheme, host and port must match and the path start with the prefix's; no user info, dot segments or look-alike hosts")
    func prefixMatching() {
        let prefixes = ["https://ntfy.example.com/up/", "http://127.0.0.1:"]
        for allowed in [
            "https://ntfy.example.com/up/abc", "https://NTFY.example.com:443/up/abc?up=1", "http://127.0.0.1:8080/push/x", "http://127.0.0.1/x",
        ] {
            #expect(UnifiedPushClient.allows(allowed, prefixes: prefixes), "\(allowed)")
        }
        for refused in [
            "http://ntfy.example.com/up/abc", "https://ntfy.example.com/other", "https://ntfy.example.com:8443/up/abc",
            "https://ntfy.example.com.evil.org/up/abc", "https://ntfy.example.com@evil.org/up/abc", "http://127.0.0.1:80@evil.org/x",
            "https://ntfy.example.com/up/../admin", "http://127.0.0.2:8080/x", "http://localhost:8080/x", "ftp://127.0.0.1/x",
            "https://ntfy.example.com/up/abc#frag", "https://user:secret@ntfy.example.com/up/abc", "not a url", "", "a1b2c3d4",
        ] {
            #expect(!UnifiedPushClient.allows(refused, prefixes: prefixes), "\(refused)")
        }
        #expect(!UnifiedPushClient.allows("http://127.0.0.1:8080/x", prefixes: []))
        #expect(UnifiedPushClient.allows("http://127.0.0.1:8080/x", prefixes: ["http://127.0.0.1:8080"]))
        #expect(!UnifiedPushClient.allows("http://127.0.0.1:8081/x", prefixes: ["http://127.0.0.1:8080"]))
    }

    @Test("UnifiedPush settings: prefixes are checked (8001), stored and shown; no key")
    func settings() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let client = try await runtime.makeTestClient()
            let view = try await runtime.pushAdmin.set(Self.settings, clientKey: client.clientKey)
            #expect(view == PushSettingsView(provider: .unifiedpush, allowedEndpoints: ["http://127.0.0.1:"], hasKey: false))
            #expect(try await runtime.pushAdmin.view(clientKey: client.clientKey) == view)
            for bad in [[], ["ftp://push.example.com/"], ["https://user@push.example.com/"], ["https://push.example.com/?a=1"], ["push.example.com"]] {
                await expectCode(.pushSettingsInvalid) {
                    _ = try await runtime.pushAdmin.set(PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: bad)), clientKey: client.clientKey)
                }
            }
            await expectCode(.pushSettingsInvalid) {
                _ = try await runtime.pushAdmin.set(
                    PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: ["http://127.0.0.1:"]), off: true), clientKey: client.clientKey
                )
            }
            #expect(try await runtime.pushAdmin.view(clientKey: client.clientKey) == view)
        }
    }
}
