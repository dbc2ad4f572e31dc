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

    @Test("a UnifiedPush endpoint is taken only under the client's allowed prefixes: otherwise 8003 and the old token stays; the SDK reads a UnifiedPush message")
    func unifiedPushEndpointChecked() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "finn", bundleId: Self.bundle)
            let deviceId = try #require(try tessera.loadDeviceID())
            let devices = SQLDeviceRepository(database: runtime.database)
            let endpoint = "https://push.example.com/up/finn-1"
            // Without UnifiedPush settings no endpoint is taken.
            await #expect { try await tessera.updatePushToken(endpoint, platform: .unifiedpush) } throws: {
                ($0 as? TesseraError)?.code == .pushEndpointNotAllowed
            }
            _ = try await runtime.pushAdmin.set(
                PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: ["https://push.example.com/up/"])), clientKey: client.clientKey
            )
            try await tessera.updatePushToken(endpoint, platform: .unifiedpush)
            #expect(try await devices.pushToken(deviceId: deviceId) == endpoint)
            for refused in [
                "https://push.example.com/other", "https://push.example.com.evil.example/up/x", "https://push.example.com@evil.example/up/x",
                "http://push.example.com/up/x", "http://127.0.0.1:8080/up/x", "a1b2c3d4",
            ] {
                await #expect("\(refused)") { try await tessera.updatePushToken(refused, platform: .unifiedpush) } throws: { error in
                    guard let error = error as? TesseraError else { return false }
                    return error.code == .pushEndpointNotAllowed && error.problem?.status == 400
                }
            }
            #expect(try await devices.pushToken(deviceId: deviceId) == endpoint)
            // The request wakes the endpoint's device; the message body reads as the push's userInfo.
            let request = try await runtime.auth.relyingParty.create(client: client, request: RPAuthRequest(userKey: "finn", connectIp: "203.0.113.5", message: "Log in"))
            #expect(try await runtime.repositories.push.counts().values.reduce(0, +) == 1)
            let message = Data(#"{"requestId":"\#(request.requestId)","type":"tessera.auth-request"}"#.utf8)
            #expect(try await tessera.handlePush(userInfo: TesseraPush.userInfo(unifiedPushMessage: message))?.channelId == request.requestId)
            #expect(TesseraPush.userInfo(unifiedPushMessage: Data("not json".utf8)).isEmpty)
            // An empty token turns pushes off, whatever the settings.
            try await tessera.updatePushToken("", platform: .unifiedpush)
            #expect(try await devices.pushToken(deviceId: deviceId) == nil)
        }
    }
}
