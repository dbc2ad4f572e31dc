import Crypto
import Foundation
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// Push delivery against a real APNs/FCM-shaped peer (HTTP/2 over TLS, checking the provider
/// tokens and headers): a relying-party request wakes each device with a push token once, with
/// the courier's guarantees (retries with backoff and `Retry-After`, leases across instances), and a
/// token the provider rejects is cleared so the device polls.
@Suite("Push delivery")
struct PushDeliveryTests {
    @Test("APNs: a relying-party request wakes the device once, with a valid provider token, over HTTP/2, naming only the request", arguments: TestDatabase.kinds)
    func apnsHappyPath(kind: TestDatabase) async throws {
        try await PushFixtures.withPeer { peer in
            let manual = PushFixtures.clock()
            try await withTestRuntime(kind, clock: manual.clock, configure: PushFixtures.configure(peer)) { runtime in
                let fixture = try await PushFixtures.fixture(runtime, settings: peer.apnsSettings())
                let requestId = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                #expect(await runtime.push.drain() == 0)
                let pushes = try peer.pushes()
                try #require(pushes.count == 1)
                let push = pushes[0]
                #expect(push["problems"] as? [String] == [])
                #expect(push["status"] as? Int == 200)
                #expect(push["httpVersion"] as? String == "2")
                #expect(push["token"] as? String == fixture.deviceToken)
                let headers = try #require(push["headers"] as? [String: String])
                #expect(headers["apns-collapse-id"] == requestId)
                #expect(headers["apns-topic"] == PushPeer.topic)
                let claims = try #require(push["claims"] as? [String: Any])
                #expect(claims["iss"] as? String == PushPeer.teamId)
                // The payload names the request and its type, nothing personal, no message text.
                let payload = try #require(push["payload"] as? [String: Any])
                #expect(Set(payload.keys) == ["aps", "type", "requestId"])
                #expect(payload["requestId"] as? String == requestId)
                #expect(payload["type"] as? String == PushMessage.type)
                let text = String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self)
                for personal in ["Example Shop", "198.51.100.7", fixture.userKey, "alice", "Alice"] { #expect(!text.contains(personal)) }
                #expect(try await runtime.repositories.push.counts() == ["sent": 1])

                // A second request reuses the provider token (Apple refuses tokens made too often)…
                _ = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                // …and after 40 min a new one is made.
                manual.advance(by: .seconds(41 * 60))
                _ = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                let authorizations = try peer.pushes().compactMap { $0["authorization"] as? String }
                #expect(authorizations.count == 3)
                #expect(authorizations[0] == authorizations[1])
                #expect(authorizations[1] != authorizations[2])
            }
        }
    }

    @Test("APNs 503 then 429 with Retry-After then 200: sent after the backoff and after Retry-After, and arrives once", arguments: TestDatabase.kinds)
    func retriesHonourRetryAfter(kind: TestDatabase) async throws {
        try await PushFixtures.withPeer(apns: ["503", "429@120"]) { peer in
            let manual = PushFixtures.clock()
            try await withTestRuntime(kind, clock: manual.clock, configure: PushFixtures.configure(peer)) { runtime in
                let fixture = try await PushFixtures.fixture(runtime, settings: peer.apnsSettings())
                _ = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)  // 503
                #expect(await runtime.push.drain() == 0)  // not due before the backoff
                manual.advance(by: .seconds(3))
                #expect(await runtime.push.drain() == 1)  // 429, Retry-After: 120
                manual.advance(by: .seconds(60))
                #expect(await runtime.push.drain() == 0)  // the backoff alone (4 s) would have allowed it
                manual.advance(by: .seconds(61))
                #expect(await runtime.push.drain() == 1)  // 200
                #expect(await runtime.push.drain() == 0)
                #expect(try peer.pushes().map { $0["status"] as? Int } == [503, 429, 200])
                #expect(try await runtime.repositories.push.counts() == ["sent": 1])
            }
        }
    }

    @Test("APNs 410 Unregistered clears the device's push token (the admin's device list says cleared, and when); the device still finds the request by polling", arguments: TestDatabase.kinds)
    func unregisteredClearsToken(kind: TestDatabase) async throws {
        try await PushFixtures.withPeer(apns: ["410"]) { peer in
            try await withTestRuntime(kind, clock: PushFixtures.clock().clock, configure: PushFixtures.configure(peer)) { runtime in
                let fixture = try await PushFixtures.fixture(runtime, settings: peer.apnsSettings())
                let devices = SQLDeviceRepository(database: runtime.database)
                let before = try await runtime.database.read { try await devices.list(userId: fixture.userId, in: $0) }
                #expect(before.map(\.push) == ["registered"])
                let requestId = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                #expect(try await devices.pushToken(deviceId: fixture.deviceId) == nil)
                let after = try await runtime.database.read { try await devices.list(userId: fixture.userId, in: $0) }
                #expect(after.map(\.push) == ["cleared"])
                #expect(after.first?.pushChangedAt == runtime.clock.now())
                // A new token from the app: registered again, with its provider and time.
                try await devices.setPushToken(deviceId: fixture.deviceId, token: "fresh-token", platform: .apns, at: runtime.clock.now() + 5)
                let renewed = try await runtime.database.read { try await devices.list(userId: fixture.userId, in: $0) }
                #expect(renewed.first.map { [$0.push, $0.pushProvider ?? "-"] } == ["registered", "apns"])
                #expect(renewed.first?.pushChangedAt == runtime.clock.now() + 5)
                try await devices.setPushToken(deviceId: fixture.deviceId, token: "", platform: .apns, at: runtime.clock.now())
                #expect(try await runtime.repositories.push.counts() == ["dropped": 1])
                let pending = try await runtime.auth.device.pending(deviceId: fixture.deviceId, client: fixture.client)
                #expect(pending.requests.map(\.channelId) == [requestId])
                // Without a token the next request is not pushed at all.
                _ = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 0)
                #expect(try peer.pushes().count == 1)
            }
        }
    }

    @Test("APNs 400 BadDeviceToken clears the token too")
    func badDeviceTokenClearsToken() async throws {
        try await PushFixtures.withPeer(apns: ["400"]) { peer in
            try await withTestRuntime(.sqlite, clock: PushFixtures.clock().clock, configure: PushFixtures.configure(peer)) { runtime in
                let fixture = try await PushFixtures.fixture(runtime, settings: peer.apnsSettings())
                _ = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                #expect(try await SQLDeviceRepository(database: runtime.database).pushToken(deviceId: fixture.deviceId) == nil)
            }
        }
    }

    @Test("the push is written with the request: a request whose transaction fails leaves no push", arguments: TestDatabase.kinds)
    func pushIsPartOfTheRequestsTransaction(kind: TestDatabase) async throws {
        try await PushFixtures.withPeer { peer in
            try await withTestRuntime(kind, clock: PushFixtures.clock().clock, configure: PushFixtures.configure(peer)) { runtime in
                let fixture = try await PushFixtures.fixture(runtime, settings: peer.apnsSettings())
                let store = runtime.auth.channels.store
                struct Abort: Error {}
                let channels = runtime.auth.channels
                await #expect(throws: Abort.self) {
                    _ = try await channels.open(
                        clientId: fixture.client.id, userId: fixture.userId, deviceId: nil, initiator: .relyingParty, ip: "192.0.2.1", message: "",
                        alongside: { channel, sql in
                            try await PushScheduler(
                                repository: runtime.repositories.push, devices: SQLDeviceRepository(database: runtime.database), service: runtime.push
                            ).schedule(channel, in: sql)
                            throw Abort()
                        }
                    )
                }
                #expect(try await runtime.repositories.push.counts().isEmpty)
                #expect(try await store.pending(userId: fixture.userId, now: runtime.clock.now()).isEmpty)
            }
        }
    }

    @Test("two server instances on one PostgreSQL database: each push is sent exactly once")
    func twoInstancesSendEachPushOnce() async throws {
        try await PushFixtures.withPeer { peer in
            // One clock for both instances, as one database's instances share time.
            let manual = PushFixtures.clock()
            try await withTwoPostgresInstances(clock: manual.clock, configure: PushFixtures.configure(peer)) { first, second in
                let client = try await first.makeTestClient()
                _ = try await first.pushAdmin.set(peer.apnsSettings(), clientKey: client.clientKey)
                var ids: Set<String> = []
                for index in 0..<6 {
                    let fixture = try await PushFixtures.user(first, client: client, name: "user\(index)")
                    for _ in 0..<4 { ids.insert(try await PushFixtures.request(index.isMultiple(of: 2) ? first : second, fixture)) }
                }
                // Two workers per instance drain at once.
                async let a = first.push.drain()
                async let b = second.push.drain()
                async let c = first.push.drain()
                async let d = second.push.drain()
                let tried = await a + b + c + d
                #expect(tried == 24)
                let sent = try peer.pushes().compactMap { ($0["payload"] as? [String: Any])?["requestId"] as? String }
                #expect(sent.count == 24)
                #expect(Set(sent) == ids)
                #expect(try await first.repositories.push.counts() == ["sent": 24])
            }
        }
    }

    @Test("FCM: the OAuth token is fetched once with a valid RS256 assertion; UNREGISTERED clears the device's token", arguments: TestDatabase.kinds)
    func fcm(kind: TestDatabase) async throws {
        try await PushFixtures.withPeer(fcm: ["200", "404"]) { peer in
            try await withTestRuntime(kind, clock: PushFixtures.clock().clock, configure: PushFixtures.configure(peer)) { runtime in
                let fixture = try await PushFixtures.fixture(runtime, settings: try peer.fcmSettings())
                let first = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                let second = try await PushFixtures.request(runtime, fixture)
                #expect(await runtime.push.drain() == 1)
                let records = try peer.records()
                let grants = records.filter { $0["provider"] as? String == "fcm-token" }
                #expect(grants.count == 1)
                #expect(grants.first?["problems"] as? [String] == [])
                let pushes = try peer.pushes()
                #expect(pushes.map { $0["status"] as? Int } == [200, 404])
                #expect(pushes.allSatisfy { ($0["problems"] as? [String]) == [] && $0["httpVersion"] as? String == "2" })
                #expect(pushes.first?["path"] as? String == "/v1/projects/example-project/messages:send")
                let data = pushes.compactMap { (($0["payload"] as? [String: Any])?["message"] as? [String: Any])?["data"] as? [String: String] }
                #expect(data == [["type": PushMessage.type, "requestId": first], ["type": PushMessage.type, "requestId": second]])
                #expect(try await SQLDeviceRepository(database: runtime.database).pushToken(deviceId: fixture.deviceId) == nil)
                #expect(try await runtime.repositories.push.counts() == ["sent": 1, "dropped": 1])
            }
        }
    }

    @Test("a client without push settings queues no push; its devices poll")
    func noSettingsNoPush() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let client = try await runtime.makeTestClient()
            let fixture = try await PushFixtures.user(runtime, client: client, name: "bob")
            _ = try await PushFixtures.request(runtime, fixture)
            #expect(try await runtime.repositories.push.counts().isEmpty)
            #expect(await runtime.push.drain() == 0)
        }
    }
}
