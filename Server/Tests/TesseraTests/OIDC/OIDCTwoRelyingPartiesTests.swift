import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// Two independent relying parties in one real browser: Apache httpd with mod_auth_openidc (Debian's
/// packages, Tests/Fixtures/apache_rp.py) and Authlib, clients of one Tessera client, driven through
/// headless Chromium (Tests/Fixtures/oidc_apache_browser.py); a device enrolled through the SDK approves
/// or declines. mod_auth_openidc checks the ID token, the logout and the back-channel logout token by
/// its own rules, so what it accepts is checked by an implementation that is not ours.
@Suite("OpenID Connect: two relying parties in Chromium (mod_auth_openidc and Authlib)", .serialized)
struct OIDCTwoRelyingPartiesTests {
    static let bundle = "com.example.two-rps"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/oidc_apache_browser.py")
        .standardized.path
    static let authlibRedirect = "http://127.0.0.1:9/callback"

    /// Apache with mod_auth_openidc, Chromium and the Python modules; a missing one fails naming it.
    static func requirements() throws -> String {
        _ = try TestRequirements.program("/usr/sbin/apache2", for: "the mod_auth_openidc relying party", debianPackage: "apache2")
        if !FileManager.default.fileExists(atPath: "/usr/lib/apache2/modules/mod_auth_openidc.so") {
            try TestRequirements.missing(
                "/usr/lib/apache2/modules/mod_auth_openidc.so (Debian package libapache2-mod-auth-openidc), for the mod_auth_openidc relying party"
            )
        }
        return try TestRequirements.browser(importing: ["authlib", "requests"], for: "the two-relying-party browser test")
    }

    /// Runs `mode` with Tessera on a known port (mod_auth_openidc reads its discovery document, whose
    /// endpoints name the issuer), Apache set up as a client, and `device` answering once the page waits.
    static func run(
        _ mode: String, userKey: String, clock: ManualClock? = nil,
        device: @escaping @Sendable (TesseraRuntime, TesseraClient, AuthChannelResponse, String) async throws -> Void
    ) async throws -> [String: Any] {
        let python = try requirements()
        let port = try NodeQuorumEndToEndTests.freePort()
        let shots = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-two-rps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shots) }
        let output = OIDCBrowserTests.Shared<String?>(nil)
        try await LiveServer.run(
            bundleId: Self.bundle, clock: clock?.clock ?? .system, port: port,
            configure: { $0.issuer = "http://127.0.0.1:\(port)"; $0.channelLifetime = .seconds(60) }
        ) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: userKey, bundleId: Self.bundle)
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let apache = try await FixtureServer(
                script: "apache_rp.py",
                arguments: ["--issuer", runtime.tokens.issuer, "--provider", url.absoluteString, "--client-id", client.clientKey, "--secret", secret],
                imports: [], purpose: "the mod_auth_openidc relying party"
            )
            defer { apache.stop() }
            let rp = "http://127.0.0.1:\(apache.port)"
            _ = try await runtime.oidc.setSettings(
                .init(
                    redirectUris: [rp + "/protected/redirect_uri", Self.authlibRedirect], postLogoutRedirectUris: [rp + "/signed-out.html"],
                    backchannelLogoutUri: rp + "/protected/redirect_uri?logout=backchannel"
                ),
                clientKey: client.clientKey
            )
            let finished = OIDCBrowserTests.Shared(false)
            let browser = Task {
                defer { finished.value.withLock { $0 = true } }
                return try await DeviceCLITests.run(
                    URL(fileURLWithPath: python), [script, mode, url.absoluteString, rp, client.clientKey, secret, userKey, shots, Self.authlibRedirect],
                    timeout: 900
                )
            }
            // The page waits for the phone once the screenshot is there; then the device answers.
            _ = await eventually(timeout: .seconds(900)) { FileManager.default.fileExists(atPath: shots + "/apache-waiting.png") || finished.current }
            guard FileManager.default.fileExists(atPath: shots + "/apache-waiting.png"), let pending = try await tessera.pendingAuthRequests().first else {
                let run = try await browser.value
                let errors = (try? String(contentsOfFile: apache.directory + "/error.log", encoding: .utf8)) ?? ""
                Issue.record("the page never waited for the phone: \(run.output)\n\(apache.log)\n\(errors)")
                return
            }
            try await device(runtime, tessera, pending, shots)
            let run = try await browser.value
            let errors = (try? String(contentsOfFile: apache.directory + "/error.log", encoding: .utf8)) ?? ""
            output.value.withLock { $0 = run.output + "\n--- apache error log ---\n" + errors }
            #expect(run.status == 0, "\(run.output)\n\(apache.log)\n--- apache error log ---\n\(errors)")
        }
        let text = try #require(output.current)
        let line = try #require(text.components(separatedBy: "\n--- apache error log ---\n").first?.split(separator: "\n").last, "\(text)")
        var result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(text)")
        result["log"] = text
        return result
    }

    @Test("approve at the Apache RP; the Authlib RP signs in from the same session without the phone (same sub and sid); logout through mod_auth_openidc (RP-initiated) ends both, and Authlib's token stops working")
    func approveThenSecondRelyingPartyThenLogout() async throws {
        let result = try await Self.run("approve", userKey: "ines") { _, tessera, pending, _ in
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
        }
        let log = result["log"] as? String ?? ""
        #expect(result["apache_signed_in"] as? String == "Signed in at the Apache RP", "\(log)")
        let apache = result["apache_claims"] as? [String: Any] ?? [:]
        let authlib = result["authlib_claims"] as? [String: Any] ?? [:]
        #expect(apache["sub"] as? String == "ines", "\(log)")
        let sid = try #require(apache["sid"] as? String, "\(log)")
        #expect(authlib["sub"] as? String == "ines")
        #expect(authlib["sid"] as? String == sid)
        #expect((authlib["auth_time"] as? NSNumber) == (apache["auth_time"] as? NSNumber))
        #expect((result["logged_out_at"] as? String)?.hasSuffix("/signed-out.html") == true, "\(log)")
        #expect(result["after"] as? String == "identify")
        #expect(result["authlib_userinfo_after"] as? Int == 401)
    }

    @Test("declined on the phone: the page says so and mod_auth_openidc receives error=access_denied with its state")
    func declineAtApache() async throws {
        let result = try await Self.run("decline", userKey: "jon") { _, tessera, pending, _ in
            try await tessera.declineAuthRequest(pending)
        }
        let log = result["log"] as? String ?? ""
        #expect(result["page_status"] as? String == "declined", "\(log)")
        #expect(result["callback_error"] as? String == "access_denied", "\(log)")
        #expect(result["callback_has_state"] as? Bool == true)
        #expect((result["rp_page"] as? String)?.contains("access_denied") == true, "\(log)")
    }

    @Test("sign-out at Tessera (confirmed on its page): the back-channel logout token is accepted by mod_auth_openidc, which ends its session")
    func backchannelToApache() async throws {
        let result = try await Self.run("backchannel", userKey: "kai") { runtime, tessera, pending, shots in
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            // After the sign-out, the logout token goes out; mod_auth_openidc must answer 2xx (it validated it).
            #expect(await eventually { FileManager.default.fileExists(atPath: shots + "/signed-out") })
            let sent = await eventually { () -> Bool? in
                await runtime.logouts.drain()
                let counts = (try? await runtime.repositories.oidcSessions.counts()) ?? [:]
                return counts["pending"] == nil && !counts.isEmpty ? true : nil
            }
            #expect(sent == true)
            #expect(try await runtime.repositories.oidcSessions.counts() == ["sent": 1])
            _ = FileManager.default.createFile(atPath: shots + "/delivered", contents: Data())
        }
        let log = result["log"] as? String ?? ""
        #expect(result["tessera_text"] as? String == "You are signed out.", "\(log)")
        #expect(result["after"] as? String == "identify", "\(log)")
    }

    @Test("expired before the phone answered (the server's clock moved past the request's lifetime): mod_auth_openidc receives login_required")
    func expireAtApache() async throws {
        let manual = ManualClock(start: WallClock.system.now())
        let result = try await Self.run("expire", userKey: "lea", clock: manual) { _, _, _, _ in
            manual.advance(by: .seconds(61))
        }
        let log = result["log"] as? String ?? ""
        #expect(result["callback_error"] as? String == "login_required", "\(log)")
        #expect(result["callback_has_state"] as? Bool == true)
        #expect((result["rp_page"] as? String)?.contains("login_required") == true, "\(log)")
    }

    @Test("Cancel on the page while the phone is asked: mod_auth_openidc receives access_denied; the phone's request is cancelled")
    func cancelAtApache() async throws {
        let result = try await Self.run("cancel", userKey: "max") { _, tessera, _, _ in
            #expect(await eventually { (try? await tessera.pendingAuthRequests().isEmpty) == true })
        }
        let log = result["log"] as? String ?? ""
        #expect(result["callback_error"] as? String == "access_denied", "\(log)")
        #expect(result["callback_has_state"] as? Bool == true)
    }

    @Test("\"Not you?\" while the phone is asked: the identifier form again and the phone's request cancelled; Cancel there reaches mod_auth_openidc as access_denied")
    func notYouAtApache() async throws {
        let result = try await Self.run("notyou", userKey: "nia") { _, tessera, _, _ in
            #expect(await eventually { (try? await tessera.pendingAuthRequests().isEmpty) == true })
        }
        let log = result["log"] as? String ?? ""
        #expect(result["restarted"] as? String == "identify", "\(log)")
        #expect(result["callback_error"] as? String == "access_denied", "\(log)")
        #expect(result["callback_has_state"] as? Bool == true)
    }
}
