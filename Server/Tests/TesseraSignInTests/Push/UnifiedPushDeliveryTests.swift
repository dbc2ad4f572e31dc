import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// UnifiedPush delivery against a real loopback endpoint (a Hummingbird server that answers scripted
/// statuses): the push arrives once with the courier's guarantees, a gone endpoint (404/410) clears the
/// token, and the server never POSTs outside the client's allowed prefixes.
@Suite("Push delivery: UnifiedPush")
struct UnifiedPushDeliveryTests {
    @Test("503 then 201: the push is sent again after the backoff and arrives once, with only the request ID and type", arguments: TestDatabase.kinds)
    func retriedAndDeliveredOnce(kind: TestDatabase) async throws {
        try await UnifiedPushFixtures.withEndpoint(script: ["a": ["503"]]) { endpoint, base in
            let manual = PushFixtures.clock()
            try await withTestRuntime(kind, clock: manual.clock) { runtime in
                let fixture = try await UnifiedPushFixtures.fixture(runtime, endpoint: base + "a")
                let requestId = try await PushFixtures.request(runtime, fixture)
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
        try await UnifiedPushFixtures.withEndpoint(script: ["a": ["429@120"]]) { endpoint, base in
            let manual = PushFixtures.clock()
            try await withTestRuntime(kind, clock: manual.clock, configure: { $0.channelLifetime = .seconds(600) }) { runtime in
                let fixture = try await UnifiedPushFixtures.fixture(runtime, endpoint: base + "a")
                _ = try await PushFixtures.request(runtime, fixture)
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
        try await UnifiedPushFixtures.withEndpoint(script: ["a": ["404"], "b": ["410"]]) { endpoint, base in
            try await withTestRuntime(kind, clock: PushFixtures.clock().clock) { runtime in
                let first = try await UnifiedPushFixtures.fixture(runtime, endpoint: base + "a", name: "alice")
                let second = try await PushFixtures.user(runtime, client: first.client, name: "bob")
                let devices = SQLDeviceRepository(database: runtime.database)
                try await devices.setPushToken(deviceId: second.deviceId, token: base + "b", platform: .unifiedpush, at: runtime.clock.now())
                let requestId = try await PushFixtures.request(runtime, first)
                _ = try await PushFixtures.request(runtime, second)
                #expect(await runtime.push.drain() == 2)
                #expect(Set(endpoint.received.map { "\($0.id) \($0.status)" }) == ["a 404", "b 410"])
                #expect(try await devices.pushToken(deviceId: first.deviceId) == nil)
                #expect(try await devices.pushToken(deviceId: second.deviceId) == nil)
                #expect(try await runtime.repositories.push.counts() == ["dropped": 2])
                // The device still finds the request by polling; the next one is not pushed.
                let pending = try await runtime.auth.device.pending(deviceId: first.deviceId, client: first.client)
                #expect(pending.requests.map(\.channelId) == [requestId])
                _ = try await PushFixtures.request(runtime, first)
                #expect(await runtime.push.drain() == 0)
                #expect(endpoint.received.count == 2)
            }
        }
    }

    @Test("an endpoint outside the allowed prefixes is never sent to (prefixes changed after it was registered); nor an APNs or untyped token")
    func notSentOutsideAllowedPrefixes() async throws {
        try await UnifiedPushFixtures.withEndpoint { endpoint, base in
            try await withTestRuntime(.sqlite, clock: PushFixtures.clock().clock) { runtime in
                let fixture = try await UnifiedPushFixtures.fixture(runtime, endpoint: base + "a")
                let other = try await PushFixtures.user(runtime, client: fixture.client, name: "bob")  // a token of no stated platform
                _ = try await runtime.pushAdmin.set(
                    PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: ["https://push.example.com/"])),
                    clientKey: fixture.client.clientKey
                )
                _ = try await PushFixtures.request(runtime, fixture)
                _ = try await PushFixtures.request(runtime, other)
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
            let view = try await runtime.pushAdmin.set(UnifiedPushFixtures.settings, clientKey: client.clientKey)
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
