import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The authorization endpoint with a session at Tessera (OIDC Core 1.0 §3.1.2.1 `prompt`, `max_age`,
/// `id_token_hint`, `login_hint`), on the service: the session is made in the repository with an approval
/// of a known age, so `max_age` is measured without waiting.
@Suite("OIDC: sign-in from a session at Tessera")
struct OIDCSessionSignInTests {
    static let redirect = "http://127.0.0.1:9/cb"
    static let verifier = String(repeating: "v", count: 43)

    static func query(_ client: Client, _ extra: [String: String] = [:]) -> [String: String] {
        [
            "client_id": client.clientKey, "redirect_uri": redirect, "response_type": "code", "scope": "openid", "state": "st",
            "nonce": "n-1", "code_challenge": OIDCService.challenge(of: verifier), "code_challenge_method": "S256",
        ].merging(extra) { $1 }
    }

    /// The redirect's query when the answer is a redirect.
    static func callback(_ answer: OIDCService.AuthorizeAnswer) -> [String: String]? {
        guard case .redirect(let location) = answer, let items = URLComponents(string: location)?.queryItems else { return nil }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    static func isPage(_ answer: OIDCService.AuthorizeAnswer) -> Bool {
        if case .page = answer { return true }
        return false
    }

    /// An ID token of this server for `userKey` at `client`, as a relying party would keep it.
    static func idToken(_ runtime: TesseraRuntime, _ client: Client, userKey: String) async throws -> String {
        let now = Date(timeIntervalSince1970: TimeInterval(runtime.clock.now() / 1000))
        return try await runtime.tokens.sign(IDTokenClaims(
            iss: .init(value: runtime.tokens.issuer), sub: .init(value: userKey), aud: .init(value: [client.clientKey]),
            exp: .init(value: now.addingTimeInterval(600)), iat: .init(value: now), authTime: Int64(now.timeIntervalSince1970), nonce: nil,
            amr: ["hwk"], azp: client.clientKey
        ))
    }

    @Test("oidcc-max-age-1, oidcc-prompt-none-logged-in, oidcc-id-token-hint: a session approved 5 s ago signs in without the phone unless max_age=1, prompt=login or a hint for another user; its sid and auth_time are in the ID token", arguments: TestDatabase.kinds)
    func sessionRules(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let other = try await runtime.makeTestClient(bundle: "com.example.other")
            for each in [client, other] { _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: each.clientKey) }
            let now = runtime.clock.now()
            let approved = now / 1000 - 5
            let users = runtime.repositories.users
            try await runtime.database.transaction { sql in
                try await users.insert(
                    UserRecord(id: "usr_fay", clientId: client.id, userKey: "fay", name: "Fay", email: "fay@example.org", phone: "+41795550101",
                               localAuthType: "none", createdAt: now),
                    in: sql
                )
            }
            _ = try await runtime.repositories.oidcSessions.signIn(
                OIDCSession(
                    id: "sid_fay", browserHash: try #require(runtime.oidc.browserHash("tb_fay")), clientId: client.id, clientKey: client.clientKey,
                    userKey: "fay", authTime: approved, amr: ["hwk", "pin"], createdAt: now, expiresAt: now + 3_600_000
                ),
                previousHash: nil, at: now
            )
            let oidc = runtime.oidc
            // prompt=none with the session: a code; without the cookie, or with another browser's: login_required.
            let silent = try #require(Self.callback(try await oidc.authorize(Self.query(client, ["prompt": "none"]), browser: "tb_fay")))
            #expect(silent["state"] == "st")
            let code = try #require(silent["code"])
            for browser in [nil, "tb_someone", ""] {
                #expect(Self.callback(try await oidc.authorize(Self.query(client, ["prompt": "none"]), browser: browser))?["error"] == "login_required")
            }
            // The session is the client's: another client's sign-in in the same browser needs the phone.
            #expect(Self.callback(try await oidc.authorize(Self.query(other, ["prompt": "none"]), browser: "tb_fay"))?["error"] == "login_required")
            // max_age: 1 s is exceeded (the page, the phone asked again); 10 s is not.
            #expect(Self.isPage(try await oidc.authorize(Self.query(client, ["max_age": "1"]), browser: "tb_fay")))
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["max_age": "1", "prompt": "none"]), browser: "tb_fay"))?["error"] == "login_required")
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["max_age": "10"]), browser: "tb_fay"))?["code"] != nil)
            #expect(Self.isPage(try await oidc.authorize(Self.query(client, ["prompt": "login"]), browser: "tb_fay")))
            // Hints: the session's user signs in silently; another user gets the page (or login_required with prompt=none).
            let fays = try await Self.idToken(runtime, client, userKey: "fay")
            let gus = try await Self.idToken(runtime, client, userKey: "gus")
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["prompt": "none", "id_token_hint": fays]), browser: "tb_fay"))?["code"] != nil)
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["prompt": "none", "id_token_hint": gus]), browser: "tb_fay"))?["error"] == "login_required")
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["login_hint": "fay"]), browser: "tb_fay"))?["code"] != nil)
            #expect(Self.isPage(try await oidc.authorize(Self.query(client, ["login_hint": "gus"]), browser: "tb_fay")))
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["login_hint": "Fay@Example.org"]), browser: "tb_fay"))?["code"] != nil)
            #expect(Self.isPage(try await oidc.authorize(Self.query(client, ["login_hint": "gus@example.org"]), browser: "tb_fay")))
            // The code's ID token names the session and the approval's time, not the sign-in's.
            let tokens = try await oidc.exchange(client: client, form: [
                "grant_type": "authorization_code", "code": code, "redirect_uri": Self.redirect, "code_verifier": Self.verifier,
            ])
            let claims = try #require(await runtime.tokens.verifySignature(tokens.idToken, as: IDTokenHint.self))
            #expect(claims.sid == "sid_fay")
            #expect(claims.sub.value == "fay")
            let payload = try #require(tokens.idToken.split(separator: ".").dropFirst().first)
            let data = try #require(Data(base64URLEncoded: String(payload)))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((json["auth_time"] as? NSNumber)?.int64Value == approved)
            #expect(json["amr"] as? [String] == ["hwk", "pin"])
            // A session whose user is gone (removed by an admin) signs no one in.
            _ = try await runtime.repositories.oidcSessions.signIn(
                OIDCSession(
                    id: "sid_ghost", browserHash: try #require(runtime.oidc.browserHash("tb_ghost")), clientId: client.id, clientKey: client.clientKey,
                    userKey: "ghost", authTime: approved, amr: ["hwk"], createdAt: now, expiresAt: now + 3_600_000
                ),
                previousHash: nil, at: now
            )
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["prompt": "none"]), browser: "tb_ghost"))?["error"] == "login_required")
            // After the session ends, the same request needs the phone again, and the code's access token is revoked.
            try await oidc.endSessions(["sid_fay"])
            #expect(Self.callback(try await oidc.authorize(Self.query(client, ["prompt": "none"]), browser: "tb_fay"))?["error"] == "login_required")
            await #expect(throws: OIDCService.OAuthError.self) { _ = try await oidc.userInfo(accessToken: tokens.accessToken) }
        }
    }
}
