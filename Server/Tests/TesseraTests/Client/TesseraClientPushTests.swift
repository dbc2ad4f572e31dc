import Foundation
import Testing
import TesseraTestSupport
import Tessera
import TesseraCore
@testable import TesseraServer

/// The SDK's side of push: the device gives its token (signed `PUT /v1/devices/push-token`), a
/// relying-party request then queues a push for it, and `handlePush(userInfo:)` turns the payload
/// (only a request ID) into the pending request fetched from the server.
@Suite("SDK: push")
struct TesseraClientPushTests {
    static let bundle = "com.example.push"

    @Test("updatePushToken stores the token and provider; a request queues a push; handlePush returns that pending request")
    func updateTokenAndHandlePush() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "erin", bundleId: Self.bundle)
            let deviceId = try #require(try tessera.loadDeviceID())
            let devices = SQLDeviceRepository(database: runtime.database)
            // A client with APNs settings that point nowhere: the push is queued, never delivered.
            let view = PushSettingsView(
                provider: .apns, teamId: "TEAM", keyId: "KEY", topic: Self.bundle, environment: .sandbox, baseURL: "https://127.0.0.1:9", hasKey: true
            )
            try await runtime.repositories.push.save(ClientPushSettings(provider: .apns, view: view, privateKey: "unused"), clientId: client.id)

            try await tessera.updatePushToken("a1b2c3d4", platform: .apns)
            #expect(try await devices.pushToken(deviceId: deviceId) == "a1b2c3d4")
            let request = try await runtime.auth.relyingParty.create(
                client: client, request: RPAuthRequest(userKey: "erin", connectIp: "203.0.113.4", message: "Log in to the web shop")
            )
            #expect(try await runtime.repositories.push.counts().values.reduce(0, +) == 1)

            let pending = try await tessera.handlePush(userInfo: ["aps": ["alert": ["loc-key": "TESSERA_AUTH_REQUEST"]], "type": "tessera.auth-request", "requestId": request.requestId])
            #expect(pending?.channelId == request.requestId)
            #expect(pending?.message == "Log in to the web shop")
            #expect(try await tessera.handlePush(userInfo: ["type": "tessera.auth-request", "requestId": "ch_unknown"]) == nil)
            #expect(try await tessera.handlePush(userInfo: ["aps": [:], "requestId": request.requestId]) == nil)

            // A token of the other provider is not pushed to through this client's APNs settings.
            try await tessera.updatePushToken("fcm-token", platform: .fcm)
            _ = try await runtime.auth.relyingParty.create(client: client, request: RPAuthRequest(userKey: "erin", connectIp: "203.0.113.4", message: ""))
            #expect(try await runtime.repositories.push.counts().values.reduce(0, +) == 1)
            // An empty token turns pushes off.
            try await tessera.updatePushToken("", platform: .apns)
            #expect(try await devices.pushToken(deviceId: deviceId) == nil)
        }
    }
}
