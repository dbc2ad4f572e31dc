import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// The whole "Sign in with Tessera" flow with real parts: Authlib (a real OIDC client library) starts it,
/// headless Debian Chromium (Selenium, Tests/Fixtures/oidc_browser.py) types the e-mail into the hosted
/// page, the APNs or FCM test peer (Tests/Fixtures/push_peer.py) receives the push with a valid provider
/// token, the device — the `tessera device` CLI, signed up with `device signup` and given the peer's token
/// with `device push-token` — is found by the push (the SDK reads it over the CLI device's keys) and answers
/// with `device approve` (polling; `--decline`), and Chromium lands on the relying party's redirect URI,
/// whose code Authlib exchanges and whose ID token it verifies via the JWKS. The CLI cannot cancel a
/// request, so the cancelled run cancels with the SDK over the same device.
/// Screenshots of the page's states go to `.e2e/screenshots/` (ignored by git).
@Suite("OpenID Connect: browser end to end", .serialized)
struct OIDCBrowserTests {
    static let bundle = "com.example.browser"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/oidc_browser.py").standardized.path
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../../.e2e/screenshots").standardized.path

    /// A value shared between the test and the tasks and closures it starts.
    final class Shared<Value: Sendable>: Sendable {
        let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        var current: Value { value.withLock { $0 } }
    }

    /// What a run leaves for the checks: the script's output and the values it is checked against.
    struct Outcome: Sendable {
        var output: String
        var redirect: String
        var clientKey: String
        var issuer: String
    }

    /// Chromium, chromedriver, the python peers and the `tessera` executable; a missing one fails the
    /// test naming it (skipped only in `scripts/test.sh --quick`, see ``TestRequirements``).
    static func requireBrowser() throws -> (python: String, binary: URL) {
        let python = try TestRequirements.browser(importing: ["authlib", "hypercorn", "jwt"], for: "the browser end-to-end test")
        guard let binary = DeviceCLITests.binary else {
            try TestRequirements.missing("the tessera executable (swift build --build-tests builds it)")
        }
        return (python, binary)
    }

    /// The relying party's redirect URI: a loopback listener that answers with a small page.
    static func withCallback(_ body: @escaping @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.get("callback") { _, _ -> Response in
            let html = "<!DOCTYPE html><html lang=\"en\"><head><title>Example app</title></head><body><h1>Example app</h1><p>Signed in.</p></body></html>"
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: LiveServer.logger)
        try await app.test(.live) { http in
            try await body("http://127.0.0.1:\(try #require(http.port))/callback")
        }
    }

    /// The Tessera part of a push payload: APNs `userInfo`, or FCM `message.data`.
    static func userInfo(_ push: [String: Any], provider: PushProvider) -> [AnyHashable: Any] {
        let payload = push["payload"] as? [String: Any] ?? [:]
        switch provider {
        case .apns: return payload
        case .fcm: return (payload["message"] as? [String: Any])?["data"] as? [String: Any] ?? [:]
        case .unifiedpush: return payload
        }
    }

    /// Signs `userKey` up as a `tessera device` in a new directory (code from the development outbox) and
    /// gives it `token` as its push token for `provider` (`tessera device push-token`).
    static func cliDevice(
        _ binary: URL, runtime: TesseraRuntime, client: Client, url: URL, userKey: String, provider: PushProvider, token: String
    ) async throws -> String {
        let (deviceDir, _) = try await DevicePushCLITests.signUp(binary, runtime: runtime, client: client, url: url, userKey: userKey, bundle: Self.bundle)
        let pushToken = try await DeviceCLITests.run(binary, [
            "device", "push-token", "--device-dir", deviceDir, "--platform", provider.rawValue, "--token", token,
        ])
        try #require(pushToken.status == 0, "\(pushToken.output)")
        return deviceDir
    }

    /// One sign-in through the browser with a client pushing through `provider`; the device approves,
    /// declines or cancels (`mode`). Returns the script's result.
    static func signIn(provider: PushProvider, mode: String, userKey: String, label: String) async throws -> [String: Any] {
        let (python, binary) = try requireBrowser()
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        let waiting = screenshots + "/\(label)-waiting.png"
        try? FileManager.default.removeItem(atPath: waiting)
        let peer = try await PushPeer()
        defer { peer.stop() }
        let outcome = Shared<Outcome?>(nil)
        try await withCallback { redirect in
            try await LiveServer.run(bundleId: Self.bundle, configure: { $0.pushCAFile = peer.certificate.certificate }) { runtime, client, url in
                _ = try await runtime.pushAdmin.set(provider == .apns ? peer.apnsSettings() : peer.fcmSettings(), clientKey: client.clientKey)
                let deviceToken = "browser-" + UUID().uuidString.lowercased()
                let deviceDir = try await Self.cliDevice(
                    binary, runtime: runtime, client: client, url: url, userKey: userKey, provider: provider, token: deviceToken
                )
                defer { try? FileManager.default.removeItem(atPath: deviceDir) }
                // The SDK over the CLI device's keys: it reads the APNs/FCM payload as an app would.
                let tessera = TesseraClient(
                    configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundle, timeout: .sdkTestDeadline),
                    keyStore: try FileKeyStore(directory: URL(fileURLWithPath: deviceDir))
                )
                _ = try await runtime.oidc.setSettings(.init(redirectUris: [redirect]), clientKey: client.clientKey)
                let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret

                // Set once the script has ended, so that waiting for its next step ends too.
                let finished = Shared(false)
                let flow = Task {
                    defer { finished.value.withLock { $0 = true } }
                    return try await DeviceCLITests.run(
                        URL(fileURLWithPath: python),
                        [Self.script, mode, url.absoluteString, client.clientKey, secret, redirect, "\(userKey)@example.com", Self.screenshots, label],
                        timeout: 600
                    )
                }
                // The page waits for the phone once the script saved that screenshot.
                let ready = await eventually(timeout: .seconds(600)) { FileManager.default.fileExists(atPath: waiting) || finished.current }
                guard ready, FileManager.default.fileExists(atPath: waiting) else {
                    let run = try await flow.value
                    Issue.record("the page never showed the waiting state (exit \(run.status)):\n\(run.output)\npeer:\n\(peer.log)")
                    return
                }
                // The peer has the push, sent with a valid provider token (APNs) or access token (FCM), to this device.
                let push = try #require(await eventually { try? peer.pushes().first }, "no push arrived:\n\(peer.log)")
                #expect(push["provider"] as? String == provider.rawValue)
                #expect(push["problems"] as? [String] == [])
                #expect(push["status"] as? Int == 200)
                #expect(push["token"] as? String == deviceToken)
                // The device reads the request from the push, with the browser's IP and the client's name.
                let pending = try #require(try await tessera.handlePush(userInfo: Self.userInfo(push, provider: provider)))
                #expect(pending.connectIp == "127.0.0.1")
                #expect(pending.message == "Sign in to SDK test")
                if mode == "cancel" {
                    try await tessera.requestAuthCancel(channel: pending)
                } else {
                    // `tessera device approve` polls for the request while Chromium waits, and approves (PIN) or declines it.
                    let answer = try await DeviceCLITests.run(
                        binary, ["device", "approve", "--device-dir", deviceDir, "--pin", DevicePushCLITests.pin, "--wait", "300"] + (mode == "decline" ? ["--decline"] : []),
                        timeout: 600
                    )
                    #expect(answer.status == 0, "\(answer.output)")
                    #expect(answer.output.contains("request from 127.0.0.1 for \(userKey)"), "\(answer.output)")
                    #expect(answer.output.contains("“Sign in to SDK test”"), "\(answer.output)")
                    #expect(answer.output.contains(mode == "decline" ? "declined" : "authenticated; result token:"), "\(answer.output)")
                }
                let run = try await flow.value
                #expect(run.status == 0, "\(run.output)")
                #expect(try peer.pushes().count == 1)
                outcome.value.withLock {
                    $0 = Outcome(output: run.output, redirect: redirect, clientKey: client.clientKey, issuer: runtime.tokens.issuer)
                }
            }
        }
        let done = try #require(outcome.current, "the sign-in never finished")
        var result = try OIDCFlowTests.result((status: 0, output: done.output))
        result["redirect"] = done.redirect
        result["clientKey"] = done.clientKey
        result["issuer"] = done.issuer
        return result
    }

    /// Checks an approved run: Chromium landed on the redirect URI and the verified ID token names the user.
    static func expectSignedIn(_ result: [String: Any], userKey: String) {
        #expect(result["landed"] as? String == result["redirect"] as? String)
        #expect(result["waiting_text"] as? String == "Approve on your phone.")
        #expect(result["alg"] as? String == "ES256")
        let claims = result["claims"] as? [String: Any] ?? [:]
        #expect(claims["sub"] as? String == userKey)
        #expect(claims["aud"] as? String == result["clientKey"] as? String || (claims["aud"] as? [String]) == [result["clientKey"] as? String ?? ""])
        #expect(claims["iss"] as? String == result["issuer"] as? String)
        #expect(claims["nonce"] is String)
        #expect((result["screenshots"] as? [String])?.count == 2)
    }

    @Test("APNs: Chromium signs in on the hosted page, the push wakes the device, the device approves, Authlib verifies the ID token")
    func apnsApproved() async throws {
        let result = try await Self.signIn(provider: .apns, mode: "approve", userKey: "rosa", label: "apns")
        Self.expectSignedIn(result, userKey: "rosa")
    }

    @Test("FCM: the same sign-in with a client that pushes through FCM")
    func fcmApproved() async throws {
        let result = try await Self.signIn(provider: .fcm, mode: "approve", userKey: "sam", label: "fcm")
        Self.expectSignedIn(result, userKey: "sam")
    }

    /// A request the device ends without approving, and what the page then says.
    struct Ending: Sendable, CustomTestStringConvertible {
        var mode: String
        var status: String
        var text: String
        var provider: PushProvider
        var userKey: String
        var testDescription: String { "\(status) (\(provider.rawValue))" }
    }

    @Test("declined or cancelled on the device: the page says so with a way back, then returns to the relying party with access_denied and the state, no code (OIDC Core 3.1.2.6)", arguments: [
        Ending(mode: "decline", status: "declined", text: "The sign-in was declined on your phone.", provider: .apns, userKey: "tara"),
        Ending(mode: "cancel", status: "cancelled", text: "The sign-in was cancelled.", provider: .fcm, userKey: "uma"),
    ])
    func endedOnDevice(ending: Ending) async throws {
        let result = try await Self.signIn(provider: ending.provider, mode: ending.mode, userKey: ending.userKey, label: ending.status)
        #expect(result["page_status"] as? String == ending.status)
        #expect(result["page_text"] as? String == ending.text)
        let url = result["url"] as? String ?? ""
        #expect(!url.hasPrefix(result["redirect"] as? String ?? "-"), "\(url)")
        #expect(result["back_shown"] as? String == "Back to SDK test")
        #expect((result["screenshots"] as? [String])?.last?.hasSuffix("\(ending.status)-\(ending.status).png") == true)
        #expect(result["landed"] as? String == result["redirect"] as? String)
        let callback = result["callback"] as? [String: String] ?? [:]
        #expect(callback["error"] == "access_denied", "\(callback)")
        #expect(callback["code"] == nil, "\(callback)")
        #expect(result["state_matches"] as? Bool == true, "\(callback)")
    }
}
