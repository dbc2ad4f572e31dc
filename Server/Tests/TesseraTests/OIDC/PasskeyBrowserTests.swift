import Foundation
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// Passkey sign-in on the hosted page in a real browser: headless Chromium with its virtual
/// authenticator (Tests/Fixtures/oidc_passkey_browser.py) holds a passkey the test registered at
/// Tessera; the page's button gets an assertion from it, the app receives the code, and Authlib
/// verifies the ID token through the JWKS. The RP ID is `localhost` (WebAuthn refuses IP addresses),
/// so Tessera's issuer is `http://localhost:port`.
@Suite("Passkeys: sign-in in Chromium with its virtual authenticator", .serialized)
struct PasskeyBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/oidc_passkey_browser.py").standardized.path

    static func run(_ mode: String) async throws -> [String: Any] {
        let python = try TestRequirements.browser(importing: ["authlib", "cryptography"], for: "the passkey browser test")
        let port = try NodeQuorumEndToEndTests.freePort()
        let output = OIDCBrowserTests.Shared<String>("")
        try await OIDCBrowserTests.withCallback { redirect in
            try await LiveServer.run(bundleId: "com.example.passkey", port: port, configure: { $0.issuer = "http://localhost:\(port)" }) { runtime, client, _ in
                let users = runtime.repositories.users, now = runtime.clock.now()
                try await runtime.database.transaction { sql in
                    try await users.insert(
                        UserRecord(id: "usr_pk_browser", clientId: client.id, userKey: "dana", name: "Dana", email: "dana@example.org",
                                   phone: "+41795550123", localAuthType: "none", createdAt: now),
                        in: sql
                    )
                }
                _ = try await runtime.oidc.setSettings(.init(redirectUris: [redirect]), clientKey: client.clientKey)
                let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
                #expect(runtime.passkeys.settings.rpId == "localhost")
                var authenticator = SoftwareAuthenticator(origin: "http://localhost:\(port)")
                let options = try await runtime.passkeys.registrationOptions(
                    client: client, userId: "usr_pk_browser", userName: "dana@example.org", displayName: "Dana", binding: "test")
                let created = try await runtime.passkeys.finishRegistration(
                    client: client, challengeId: options.challengeId, binding: "test", response: authenticator.create(options.options), name: nil)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("passkey-\(UUID().uuidString).json")
                defer { try? FileManager.default.removeItem(at: file) }
                let credential: [String: String] = [
                    "credentialId": created.credentialId, "privateKeyPem": authenticator.key.pemRepresentation, "userHandle": created.userHandle, "rpId": "localhost",
                ]
                try JSONSerialization.data(withJSONObject: credential).write(to: file)
                let run = try await DeviceCLITests.run(
                    URL(fileURLWithPath: python), [script, mode, "http://localhost:\(port)", client.clientKey, secret, redirect, file.path], timeout: 900
                )
                #expect(run.status == 0, "\(run.output)")
                output.value.withLock { $0 = run.output }
                if mode == "autofill" || mode == "button" {
                    let stored = try await runtime.database.read { sql in try await runtime.repositories.passkeys.list(userId: "usr_pk_browser", clientId: client.id, in: sql) }
                    #expect(stored.first?.lastUsedAt != nil)
                    #expect(stored.first?.signCount ?? 0 >= 1, "Chromium's authenticator counts its signatures")
                    // Which request signed in: the page's first challenge is the autofill one, a later one the button's.
                    struct Challenge: Decodable { var created_at: Int64; var used_at: Int64? }
                    let challenges = try await runtime.database.read { sql in
                        try await sql.raw("SELECT created_at, used_at FROM passkey_challenges WHERE binding <> 'test' ORDER BY created_at, id").all(decoding: Challenge.self)
                    }
                    let used = challenges.filter { $0.used_at != nil }
                    #expect(used.count == 1, "\(challenges)")
                    if mode == "button" {
                        #expect(challenges.count == 2 && challenges.last?.used_at != nil, "the button's challenge signed in: \(challenges)")
                    } else {
                        #expect(challenges.first?.used_at != nil, "the autofill challenge signed in: \(challenges)")
                    }
                }
            }
        }
        let text = output.current
        let line = try #require(text.split(separator: "\n").last, "\(text)")
        var result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(text)")
        result["log"] = text
        return result
    }

    @Test("autofill (conditional mediation): Chromium's authenticator answers as the page loads, the app gets the code with its state, Authlib verifies the ID token: sub and amr [hwk, user]")
    func autofill() async throws {
        let result = try await Self.run("autofill")
        let log = result["log"] as? String ?? ""
        #expect(result["state_matches"] as? Bool == true, "\(log)")
        #expect(result["sub"] as? String == "dana", "\(log)")
        #expect(result["amr"] as? [String] == ["hwk", "user"], "\(log)")
    }

    @Test("the button: with the authenticator added after the page asked for autofill, the click's own request signs in; Authlib verifies the ID token")
    func button() async throws {
        let result = try await Self.run("button")
        let log = result["log"] as? String ?? ""
        #expect(result["button"] as? String == "Sign in with a passkey", "\(log)")
        #expect(result["state_matches"] as? Bool == true, "\(log)")
        #expect(result["sub"] as? String == "dana", "\(log)")
        #expect(result["amr"] as? [String] == ["hwk", "user"], "\(log)")
    }

    @Test("the button with a passkey Tessera never registered: the assertion reaches Tessera, which refuses it (7303); the page says it is not registered here")
    func unknown() async throws {
        let result = try await Self.run("unknown")
        #expect(result["button"] as? String == "Sign in with a passkey")
        #expect(result["text"] as? String == SignInStrings.english.passkeyUnknown, "\(result["log"] as? String ?? "")")
    }

    @Test("the button with user verification off on the authenticator while the page requires it: no sign-in, the page says so")
    func noUserVerification() async throws {
        let result = try await Self.run("no-uv")
        let text = result["text"] as? String
        #expect(text == SignInStrings.english.passkeyCancelled || text == SignInStrings.english.passkeyFailed, "\(result["log"] as? String ?? "")")
        #expect((result["url"] as? String)?.contains("/oauth2/authorize") == true)
    }

    @Test("the whole journey (issue 38's Done when): a phone-approved sign-in, the page offers a passkey, Chromium's authenticator creates it; sign-out; autofill and then the button sign in with it; a second authenticator holding it gets InvalidStateError when offered again; Authlib verifies every ID token")
    func journey() async throws {
        let python = try TestRequirements.browser(importing: ["authlib", "cryptography"], for: "the passkey browser test")
        let port = try NodeQuorumEndToEndTests.freePort()
        let bundle = "com.example.passkey"
        let output = OIDCBrowserTests.Shared<String>("")
        try await OIDCBrowserTests.withCallback { redirect in
            try await LiveServer.run(bundleId: bundle, port: port, configure: { $0.issuer = "http://localhost:\(port)" }) { runtime, client, url in
                let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "dana", bundleId: bundle)
                _ = try await runtime.oidc.setSettings(.init(redirectUris: [redirect], offerPasskeys: true), clientKey: client.clientKey)
                let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
                // The phone: approves each sign-in the page sends it, until the script has ended.
                let finished = OIDCBrowserTests.Shared(false)
                let phone = Task {
                    var approved = 0
                    while !finished.current {
                        if let pending = try await tessera.pendingAuthRequests().first {
                            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
                            approved += 1
                        } else {
                            try await Task.sleep(for: .milliseconds(200))
                        }
                    }
                    return approved
                }
                let run = try await DeviceCLITests.run(
                    URL(fileURLWithPath: python), [Self.script, "journey", "http://localhost:\(port)", client.clientKey, secret, redirect, "dana@example.com"],
                    timeout: 900
                )
                finished.value.withLock { $0 = true }
                #expect(try await phone.value == 2, "two sign-ins went to the phone: the first and the one that offered a passkey again")
                #expect(run.status == 0, "\(run.output)")
                output.value.withLock { $0 = run.output }
                let userId = try #require(try await runtime.database.read { sql in
                    try await runtime.repositories.users.find(clientId: client.id, userKey: "dana", in: sql)
                }?.id)
                let stored = try await runtime.database.read { sql in try await runtime.repositories.passkeys.list(userId: userId, clientId: client.id, in: sql) }
                #expect(stored.count == 1, "one passkey: the excluded authenticator added none")
                #expect(stored.first?.signCount ?? 0 >= 2, "two sign-ins counted")
                #expect(stored.first?.userHandle.isEmpty == false && stored.first?.userHandle.contains("dana") == false)
            }
        }
        let text = output.current
        let line = try #require(text.split(separator: "\n").last, "\(text)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(text)")
        #expect(result["offer_title"] as? String == SignInStrings.english.offerTitle, "\(text)")
        #expect((result["created"] as? [[String: Any]])?.first?["resident"] as? Bool == true, "\(text)")
        for (step, amr) in [("phone", ["hwk", "pin"]), ("autofill", ["hwk", "user"]), ("button", ["hwk", "user"]), ("without", ["hwk", "pin"])] {
            let signedIn = result[step] as? [String: Any]
            #expect(signedIn?["sub"] as? String == "dana", "\(step): \(text)")
            #expect(signedIn?["amr"] as? [String] == amr, "\(step): \(text)")
        }
        #expect(result["excluded_status"] as? String == "passkey-exists", "\(text)")
        #expect(result["excluded_text"] as? String == SignInStrings.english.offerExists, "\(text)")
        #expect(result["excluded_count"] as? Int == 1, "the second authenticator still holds only the passkey it was given")
        #expect(result["skip_text"] as? String == SignInStrings.english.continueButton, "\(text)")
    }
}
