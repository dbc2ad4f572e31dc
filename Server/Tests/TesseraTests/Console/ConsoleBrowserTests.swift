import Foundation
import Synchronization
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// The admin console in headless Debian Chromium (Selenium, Tests/Fixtures/console_browser.py) against a live
/// server with its embedded nodes: sign in with the admin token, create a client, revoke a device (signed up through
/// the SDK) and see it revoked, rotate the signing key, verify the audit log, and watch a login (the SDK, driven here
/// once the live view is connected) appear; at 1280 and 390 px wide, with no SEVERE entry in the browser's log.
/// Screenshots go to `.e2e/screenshots/console-*.png` (ignored by git; docs/console.png is one of them).
@Suite("Admin console: browser end to end", .serialized)
struct ConsoleBrowserTests {
    static let bundle = "com.example.console-browser"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/console_browser.py").standardized.path
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../../.e2e/screenshots").standardized.path

    @Test("Chromium signs in, creates a client, revokes a device, rotates a key, verifies the audit log and sees a login live")
    func console() async throws {
        let python = try TestRequirements.browser(for: "the console browser test")
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        // An issuer on a domain name: passkeys are available (a user's passkey is listed and revoked below).
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.issuer = "https://login.example.com" }) { runtime, client, url in
            let token = try #require(runtime.firstStart?.adminToken)
            let revoked = try await LiveServer.enrol(runtime, client, url, userKey: "vera", bundleId: Self.bundle)
            let deviceId = try #require(try revoked.loadDeviceID())
            let user = try await LiveServer.enrol(runtime, client, url, userKey: "liam", bundleId: Self.bundle)
            let passkey = try await TesseraClientPasskeyTests.register(runtime, client, userKey: "liam").0
            let ready = FileManager.default.temporaryDirectory.appendingPathComponent("console-ready-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: ready) }

            let finished = Mutex(false)
            let browser = Task {
                defer { finished.withLock { $0 = true } }
                return try await DeviceCLITests.run(
                    URL(fileURLWithPath: python), [Self.script, url.absoluteString, token, client.clientKey, deviceId, Self.screenshots, ready, "liam", passkey.id],
                    timeout: 900
                )
            }
            // A login once the live view is connected.
            let connected = await eventually(timeout: .seconds(900)) { FileManager.default.fileExists(atPath: ready) || finished.withLock { $0 } }
            guard connected, FileManager.default.fileExists(atPath: ready) else {
                let run = try await browser.value
                Issue.record("the live view never connected (exit \(run.status)):\n\(run.output)")
                return
            }
            _ = try await user.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in")
            let run = try await browser.value
            try #require(run.status == 0, "\(run.output)")
            let result = try OIDCFlowTests.result(run)

            #expect(result["token_in_url"] as? Bool == false)
            #expect(result["cookie_visible_to_script"] as? Bool == false)
            #expect((result["client_secret_length"] as? Int ?? 0) > 20)
            let created = try #require(result["created_client_key"] as? String)
            #expect(try await runtime.clients.list().contains { $0.clientKey == created && $0.name == "Console test app" })
            #expect(result["ciba_saved"] as? String == "CIBA settings saved.", "\(result["ciba_saved"] ?? "")")
            let createdClient = try await runtime.clients.client(clientKey: created)
            #expect(try await runtime.signIn.ciba.settings(client: createdClient) == CIBAClientSettings(deliveryMode: "ping", notificationEndpoint: "https://console.example.com/ciba"))

            #expect(result["device_status"] as? String == "revoked")
            #expect(result["device_attest"] as? String == "App Attest: not attested")
            #expect(result["device_revoke_buttons"] as? Int == 0)
            let listed = try await runtime.userAdmin.list(clientKey: client.clientKey)
            #expect(listed.users.first { $0.userKey == "vera" }?.devices.first?.status == "revoked")
            #expect((result["passkey_text"] as? String)?.contains("Laptop") == true, "\(result["passkey_text"] ?? "")")
            #expect(result["passkeys_after_revoke"] as? Int == 0)
            #expect(try await runtime.passkeys.list(userId: passkey.userId, client: client).passkeys.isEmpty, "revoked from the console")

            let rotated = try #require(result["rotated_kid"] as? String)
            // Published before it signed (the upcoming key), and not the one that signed before the rotation.
            #expect(((result["kids_before"] as? [String]) ?? []).contains(rotated))
            #expect((result["kids_before"] as? [String])?.first != rotated)
            #expect((result["kids_after"] as? [String])?.first == rotated)
            #expect(try await runtime.tokens.jwks.first?.kid == rotated)

            #expect(result["webhook_secret_prefix"] as? String == "whsec_")
            #expect(((result["webhook_history"] as? [String]) ?? []).contains { $0.hasPrefix("webhook.test") }, "\(result["webhook_history"] ?? "")")
            let endpoints = try await runtime.webhookAdmin.list(clientKey: client.clientKey).endpoints
            #expect(endpoints.map(\.url) == ["http://127.0.0.1:9/hooks"])

            #expect(result["audit_ok"] as? String == "true")
            #expect(((result["live_types"] as? [String]) ?? []).contains("login.completed"))
            #expect(result["nav_hidden_390"] as? Bool == true)
            #expect(result["overflow_390"] as? Int == 0)
            #expect(result["overflow_390_users"] as? Int == 0)
            let clipped = result["clipped_390"] as? [String: [String]] ?? [:]
            #expect(Set(clipped.keys) == ["clients", "audit", "webhooks", "keys", "users"], "\(clipped)")
            for (page, cut) in clipped { #expect(cut.isEmpty, "\(page) at 390 px: \(cut)") }
            #expect(result["severe"] as? [String] == [], "\(result["severe"] ?? "")")
            #expect((result["screenshots"] as? [String])?.count == 13)

            // The console's changes are audited with their actor.
            let audit = runtime.repositories.audit
            let entries = try await runtime.database.read { try await audit.entries(AuditQuery(limit: 1000), in: $0) }
            let console = Set(entries.filter { $0.actor == "admin:console" }.map(\.type))
            #expect(console.isSuperset(of: ["admin.client.created", "admin.device.revoked", "admin.key.rotated"]), "\(console)")
        }
    }
}
