import AsyncHTTPClient
import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// Sessions at Tessera, RP-Initiated Logout 1.0 and Back-Channel Logout 1.0 against a live server: Authlib
/// plays the relying party (Tests/Fixtures/oidc_client.py, mode `session`), a device approves the first
/// sign-in through the SDK, and the client's back-channel logout endpoint is a receiver that validates each
/// logout token with Authlib against the JWKS (Tests/Fixtures/logout_receiver.py).
@Suite("OpenID Connect: sessions at Tessera and logout", .serialized)
struct OIDCSessionLogoutTests {
    static let bundle = "com.example.oidc-session"
    static let logoutRedirect = "http://127.0.0.1:9/signed-out"

    /// A value of the script's JSON as compact JSON again (booleans stay booleans).
    static func json(_ value: Any?) -> String {
        guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) else { return "nil" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A back-channel logout endpoint for `clientKey` that validates tokens of the server at `url`.
    static func receiver(url: URL, issuer: String, clientKey: String) async throws -> FixtureServer {
        try await FixtureServer(
            script: "logout_receiver.py",
            arguments: ["--issuer", issuer, "--jwks", url.absoluteString + "/.well-known/jwks.json", "--audience", clientKey],
            imports: ["authlib", "requests"], purpose: "the back-channel logout receiver"
        )
    }

    @Test("approve once, then prompt=none and a second sign-in need no phone (same sid and auth_time); prompt=login and max_age=0 ask again; RP-initiated logout (§2, §3) ends the session, revokes its tokens and sends one logout token that Authlib validates (BCL §2.4–2.6)")
    func sessionAndLogout() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let receiver = try await Self.receiver(url: url, issuer: runtime.tokens.issuer, clientKey: client.clientKey)
            defer { receiver.stop() }
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "sasha", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(
                .init(
                    redirectUris: [OIDCFlowTests.redirect], postLogoutRedirectUris: [Self.logoutRedirect],
                    backchannelLogoutUri: "http://127.0.0.1:\(receiver.port)/backchannel"
                ),
                clientKey: client.clientKey
            )
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let flow = try OIDCFlowTests.relyingParty(
                "session", url: url, client: client, secret: secret, identifier: "sasha", extra: [Self.logoutRedirect]
            )
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            let run = try await flow.value
            #expect(run.status == 0, "\(run.output)")
            let session = try #require(try OIDCFlowTests.result(run)["session"] as? [String: Any], "\(run.output)")
            // The device was asked once: every later sign-in came from the session.
            #expect(try await tessera.pendingAuthRequests().isEmpty)
            #expect(session["cookie"] as? Bool == true)
            #expect(Self.json(session["none"]) == "[302,true,true]")
            let sid = try #require(session["first_sid"] as? String)
            #expect(sid.hasPrefix("sid_"))
            #expect(session["none_sid"] as? String == sid)
            #expect(session["none_auth_time_same"] as? Bool == true)
            #expect(session["sso_code"] as? Bool == true)
            #expect(session["hint_none_code"] as? Bool == true)
            #expect(session["login_page"] as? Int == 200)
            #expect(session["max_age_0_page"] as? Int == 200)
            #expect(session["max_age_3600_code"] as? Bool == true)
            #expect(Self.json(session["fresh_none"]) == #"["login_required",true]"#)
            // §2: without an ID token of this session the user is asked; a forged confirmation is asked again.
            #expect(Self.json(session["asked"]) == "[200,true,true]")
            #expect(session["forged_confirm"] as? Int == 200)
            #expect(session["still_signed_in"] as? Bool == true)
            #expect((session["bad_uri"] as? [Any])?.first as? Int == 400)
            #expect((session["bad_uri"] as? [Any])?.last is NSNull)
            #expect((session["logout"] as? [Any])?.first as? Int == 302)
            #expect((session["logout"] as? [Any])?.last as? String == Self.logoutRedirect + "?state=ls-1")
            #expect(session["cookie_after"] is NSNull)
            #expect(session["after_none"] as? String == "login_required")
            #expect(session["userinfo_after"] as? [Int] == [401, 401])

            // Back-channel logout: exactly one logout token, validated by Authlib, naming the session.
            let sent = await eventually { () -> Bool? in
                await runtime.logouts.drain()
                return (try? await runtime.repositories.oidcSessions.counts())?["sent"] == 1 ? true : nil
            }
            #expect(sent == true, "\(receiver.log)")
            let records = try receiver.records()
            #expect(records.count == 1, "\(records) \(receiver.log)")
            let record = try #require(records.first)
            #expect(record["verified"] as? Bool == true, "\(record)")
            let claims = record["claims"] as? [String: Any] ?? [:]
            #expect(claims["sid"] as? String == sid)
            #expect(claims["sub"] as? String == "sasha")
            #expect(claims["iss"] as? String == runtime.tokens.issuer)
            #expect((record["header"] as? [String: Any])?["typ"] as? String == "logout+jwt")
            #expect(try await runtime.repositories.oidcSessions.counts() == ["sent": 1])
        }
    }
}
