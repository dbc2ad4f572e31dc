import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The back-channel logout outbox (Back-Channel Logout 1.0 §2.5) and the end-session endpoint's
/// confirmation, on both databases; the logout tokens are validated by Authlib in a receiver
/// (Tests/Fixtures/logout_receiver.py) against the server's JWKS.
@Suite("OIDC: back-channel logout", .serialized)
struct BackchannelLogoutTests {
    /// A live session of `userKey` with the client, in the browser whose cookie is `browser`.
    static func session(_ runtime: TesseraRuntime, client: Client, userKey: String, browser: String) -> OIDCSession {
        let now = runtime.clock.now()
        return OIDCSession(
            id: "sid_\(userKey)", browserHash: runtime.oidc.hasher.hash(browser, domain: OIDCService.browserDomain), clientId: client.id,
            clientKey: client.clientKey, userKey: userKey, authTime: now / 1000, amr: ["hwk", "pin"], createdAt: now, expiresAt: now + 3_600_000
        )
    }

    /// A receiver for `client`'s logout tokens, validating against the JWKS `runtime` publishes (written to a file).
    static func receiver(_ runtime: TesseraRuntime, client: Client) async throws -> FixtureServer {
        let jwks = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-jwks-\(UUID().uuidString).json").path
        try JSONEncoder().encode(["keys": try await runtime.tokens.jwks]).write(to: URL(filePath: jwks))
        let receiver = try await FixtureServer(
            script: "logout_receiver.py", arguments: ["--issuer", runtime.tokens.issuer, "--jwks", jwks, "--audience", client.clientKey],
            imports: ["authlib", "requests"], purpose: "the back-channel logout receiver"
        )
        _ = try await runtime.oidc.setSettings(
            .init(redirectUris: ["http://127.0.0.1:9/cb"], backchannelLogoutUri: "http://127.0.0.1:\(receiver.port)/logout"), clientKey: client.clientKey
        )
        return receiver
    }

    @Test("ending a session queues one logout, sent once and validated (sid, sub, events, typ); ending it again queues nothing; a receiver that is down gets it again later", arguments: TestDatabase.kinds)
    func logoutOnce(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let receiver = try await Self.receiver(runtime, client: client)
            defer { receiver.stop() }
            let sessions = runtime.repositories.oidcSessions
            let now = runtime.clock.now()
            #expect(try await sessions.signIn(Self.session(runtime, client: client, userKey: "ava", browser: "tb_a"), previousHash: nil, at: now) == "sid_ava")
            try receiver.setDown(true)
            #expect(try await runtime.oidc.endSessions(["sid_ava"]).map(\.id) == ["sid_ava"])
            #expect(try await runtime.oidc.endSessions(["sid_ava"]).isEmpty)
            #expect(await runtime.logouts.drain() == 1)
            #expect(try await sessions.counts() == ["pending": 1])
            // Retried after the backoff, not before.
            #expect(await runtime.logouts.drain() == 0)
            try receiver.setDown(false)
            try await runtime.database.withSQL { sql in
                try await sql.raw("UPDATE oidc_logout_outbox SET next_attempt_at = 0").run()
            }
            #expect(await runtime.logouts.drain() == 1)
            #expect(try await sessions.counts() == ["sent": 1])
            let records = try receiver.records()
            #expect(records.map { $0["status"] as? Int } == [503, 200], "\(records)")
            let claims = try #require(records.last?["claims"] as? [String: Any], "\(records)")
            #expect(claims["sid"] as? String == "sid_ava")
            #expect(claims["sub"] as? String == "ava")
            #expect(claims["nonce"] == nil)
            #expect((claims["jti"] as? String)?.hasPrefix("bcl_") == true)
        }
    }

    @Test("another user signing in to the same client in the browser ends the first user's session (and logs it out); the browser's sessions follow its new cookie", arguments: TestDatabase.kinds)
    func anotherUser(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let sessions = runtime.repositories.oidcSessions
            let now = runtime.clock.now()
            _ = try await sessions.signIn(Self.session(runtime, client: client, userKey: "ben", browser: "tb_1"), previousHash: nil, at: now)
            let hash1 = runtime.oidc.hasher.hash("tb_1", domain: OIDCService.browserDomain)
            // The same user again, under a new cookie: the same session, moved.
            var again = Self.session(runtime, client: client, userKey: "ben", browser: "tb_2")
            again.id = "sid_other"
            #expect(try await sessions.signIn(again, previousHash: hash1, at: now) == "sid_ben")
            #expect(try await sessions.live(browserHash: hash1, at: now).isEmpty)
            let hash2 = again.browserHash
            #expect(try await sessions.live(browserHash: hash2, clientId: client.id, at: now)?.id == "sid_ben")
            // Another user in that browser: ben's session ends.
            var cleo = Self.session(runtime, client: client, userKey: "cleo", browser: "tb_2")
            cleo.browserHash = hash2
            #expect(try await sessions.signIn(cleo, previousHash: hash2, at: now) == "sid_cleo")
            #expect(try await sessions.session(id: "sid_ben")?.endedAt == now)
            #expect(try await sessions.live(browserHash: hash2, at: now).map(\.id) == ["sid_cleo"])
        }
    }

    @Test("RP-Initiated Logout §2: without an ID token the user is asked; the confirmation's form token is bound to the browser; confirmed, every session of the browser ends")
    func confirmation() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let client = try await runtime.makeTestClient()
            let sessions = runtime.repositories.oidcSessions
            let now = runtime.clock.now()
            _ = try await sessions.signIn(Self.session(runtime, client: client, userKey: "dan", browser: "tb_d"), previousHash: nil, at: now)
            guard case .confirm(let csrf, let name, let kept) = try await runtime.oidc.logout(["client_id": client.clientKey, "state": "s"], browser: "tb_d") else {
                Issue.record("expected the question")
                return
            }
            #expect(name?.name == client.name)
            #expect(kept == ["client_id": client.clientKey, "state": "s"])
            // Another browser's cookie with this token, or a made-up token: asked again.
            _ = try await sessions.signIn(Self.session(runtime, client: client, userKey: "eve", browser: "tb_e"), previousHash: nil, at: now)
            if case .loggedOut = try await runtime.oidc.logout(["csrf": csrf], browser: "tb_e") { Issue.record("another browser's confirmation was taken") }
            if case .loggedOut = try await runtime.oidc.logout(["csrf": "forged"], browser: "tb_d") { Issue.record("a forged confirmation was taken") }
            #expect(try await runtime.oidc.logout(["csrf": csrf], browser: "tb_d") == .loggedOut(location: nil, clearCookie: true))
            #expect(try await sessions.session(id: "sid_dan")?.endedAt != nil)
            #expect(try await sessions.session(id: "sid_eve")?.endedAt == nil)
            // Without a session there is nothing to ask.
            #expect(try await runtime.oidc.logout([:], browser: nil) == .loggedOut(location: nil, clearCookie: false))
            // A post-logout URI that is not registered, or without a client to register it: an error page.
            if case .errorPage = try await runtime.oidc.logout(["post_logout_redirect_uri": "https://evil.example/"], browser: nil) {} else {
                Issue.record("an unregistered URI was accepted")
            }
            if case .errorPage = try await runtime.oidc.logout(["id_token_hint": "not-a-token"], browser: nil) {} else {
                Issue.record("a made-up ID token was accepted")
            }
        }
    }

    @Test("two server instances on one PostgreSQL database: each ended session's logout token is sent exactly once")
    func twoInstances() async throws {
        try await withTwoPostgresInstances { first, second in
            var receiver: FixtureServer?
            defer { receiver?.stop() }
            let client = try await first.makeTestClient()
            receiver = try await Self.receiver(first, client: client)
            let now = first.clock.now()
            let users = (0..<12).map { "user\($0)" }
            for (index, user) in users.enumerated() {
                _ = try await first.repositories.oidcSessions.signIn(
                    Self.session(first, client: client, userKey: user, browser: "tb_\(index)"), previousHash: nil, at: now
                )
                // Half end on each instance.
                _ = try await (index.isMultiple(of: 2) ? first : second).oidc.endSessions(["sid_\(user)"])
            }
            async let a = first.logouts.drain()
            async let b = second.logouts.drain()
            async let c = first.logouts.drain()
            async let d = second.logouts.drain()
            #expect(await a + b + c + d == 12)
            let records = try receiver?.records() ?? []
            #expect(records.count == 12, "\(records)")
            #expect(records.allSatisfy { $0["verified"] as? Bool == true }, "\(records)")
            #expect(Set(records.compactMap { ($0["claims"] as? [String: Any])?["sid"] as? String }) == Set(users.map { "sid_\($0)" }))
            #expect(try await first.repositories.oidcSessions.counts() == ["sent": 12])
        }
    }
}
