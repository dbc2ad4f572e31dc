import Foundation
import JWTKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// ``OIDCService``'s refresh-token rules over ``InMemoryOIDCRepository`` (RFC 6749 §6, OIDC Core §12,
/// RFC 9700 §4.14.2, RFC 7009, RFC 7662), with time on the injected clock: what another client, time,
/// a removed user and a second use do. The flow through a real client library is in OIDCFlowTests.
@Suite("OIDC: refresh tokens, revocation and introspection in the service", .serialized)
struct OIDCRefreshServiceTests {
    typealias Support = OIDCServiceInMemoryTests

    /// A code for `alice` with `offline_access`, exchanged: the token response.
    static func signIn(
        _ runtime: TesseraRuntime, _ oidc: OIDCService, _ repository: InMemoryOIDCRepository, client: Client, code: String, at now: Int64
    ) async throws -> OIDCService.TokenResponse {
        let request = OIDCPendingRequest(
            id: "oar_\(code)", clientId: client.id, clientKey: client.clientKey, redirectUri: Support.redirect, state: "s", nonce: "n",
            codeChallenge: OIDCService.challenge(of: OIDCStorageTests.verifier), scope: "openid offline_access", csrfHash: "x", createdAt: now,
            expiresAt: now + 600_000
        )
        try await repository.insert(request)
        let record = OIDCCode(
            codeHash: runtime.keys.hasher.hash(code, domain: OIDCService.codeDomain), requestId: request.id, clientId: client.id,
            redirectUri: Support.redirect, codeChallenge: request.codeChallenge, nonce: "n", scope: request.scope, userKey: "alice",
            authTime: now / 1000, amr: ["hwk"], expiresAt: now + 60_000
        )
        #expect(try await repository.complete(request.id, code: record, at: now))
        return try await oidc.exchange(client: client, form: OIDCStorageTests.grant(code))
    }

    static func addAlice(_ runtime: TesseraRuntime, client: Client) async throws {
        let users = runtime.repositories.users, now = runtime.clock.now()
        try await runtime.database.transaction { sql in
            try await users.insert(
                UserRecord(id: "usr_alice_\(client.id)", clientId: client.id, userKey: "alice", name: "Alice", email: "alice@example.org",
                           phone: "+41795550199", localAuthType: "none", createdAt: now),
                in: sql
            )
        }
    }

    static func grant(_ refreshToken: String) -> [String: String] { ["grant_type": "refresh_token", "refresh_token": refreshToken] }

    @Test("without offline_access no refresh token; with it, a refresh works once for its own client, and the used one, then the family, is refused")
    func rotationAndClients() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = InMemoryOIDCRepository()
            let oidc = Support.service(runtime, repository: repository)
            let client = try await runtime.makeTestClient()
            let other = try await runtime.makeTestClient(bundle: "com.example.other")
            try await Self.addAlice(runtime, client: client)
            try await Support.issueCode(runtime, repository, client: client, code: "oc_plain", at: manual.clock.now())
            #expect(try await oidc.exchange(client: client, form: OIDCStorageTests.grant("oc_plain")).refreshToken == nil)

            let first = try await Self.signIn(runtime, oidc, repository, client: client, code: "oc_offline", at: manual.clock.now())
            let refresh = try #require(first.refreshToken)
            // Another client's refresh token is as unknown as a made-up one, and stays usable by its own client.
            await OIDCStorageTests.expectOAuthError("invalid_grant") { _ = try await oidc.exchange(client: other, form: Self.grant(refresh)) }
            await OIDCStorageTests.expectOAuthError("invalid_grant") { _ = try await oidc.exchange(client: client, form: Self.grant("ort_made_up")) }
            await OIDCStorageTests.expectOAuthError("invalid_request") { _ = try await oidc.exchange(client: client, form: ["grant_type": "refresh_token"]) }
            #expect(try await oidc.introspect(client: other, token: refresh) == .inactive)
            try await oidc.revoke(client: other, token: refresh, hint: "refresh_token")
            #expect(try await oidc.introspect(client: client, token: refresh).active)

            manual.advance(by: .seconds(100))
            let second = try await oidc.exchange(client: client, form: Self.grant(refresh))
            let next = try #require(second.refreshToken)
            #expect(next != refresh)
            #expect(try await oidc.userInfo(accessToken: second.accessToken)["sub"] == "alice")
            // The refreshed ID token keeps the sign-in's auth_time and has no nonce (OIDC Core §12.2).
            let claims = await runtime.tokens.verifySignature(second.idToken, as: RefreshedClaims.self)
            #expect(claims?.authTime == (manual.clock.now() - 100_000) / 1000)
            #expect(claims?.nonce == nil)

            // The used token again: refused, and every token of the sign-in with it.
            await OIDCStorageTests.expectOAuthError("invalid_grant") { _ = try await oidc.exchange(client: client, form: Self.grant(refresh)) }
            await OIDCStorageTests.expectOAuthError("invalid_grant") { _ = try await oidc.exchange(client: client, form: Self.grant(next)) }
            await OIDCStorageTests.expectOAuthError("invalid_token") { _ = try await oidc.userInfo(accessToken: second.accessToken) }
            await OIDCStorageTests.expectOAuthError("invalid_token") { _ = try await oidc.userInfo(accessToken: first.accessToken) }
        }
    }

    /// The claims of a refreshed ID token the test reads.
    struct RefreshedClaims: IssuedPayload {
        var iss: IssuerClaim
        var authTime: Int64
        var nonce: String?

        enum CodingKeys: String, CodingKey {
            case iss, nonce
            case authTime = "auth_time"
        }

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    @Test("oidcc-ensure-request-without-nonce-succeeds-for-code-flow: a sign-in without nonce gets an ID token without one")
    func withoutNonce() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = InMemoryOIDCRepository()
            let oidc = Support.service(runtime, repository: repository)
            let client = try await runtime.makeTestClient()
            let now = manual.clock.now()
            let request = OIDCPendingRequest(
                id: "oar_nn", clientId: client.id, clientKey: client.clientKey, redirectUri: Support.redirect, state: "", nonce: "",
                codeChallenge: OIDCService.challenge(of: OIDCStorageTests.verifier), scope: "openid", csrfHash: "x", createdAt: now, expiresAt: now + 600_000
            )
            try await repository.insert(request)
            #expect(try await repository.complete(request.id, code: OIDCCode(
                codeHash: runtime.keys.hasher.hash("oc_nn", domain: OIDCService.codeDomain), requestId: request.id, clientId: client.id,
                redirectUri: Support.redirect, codeChallenge: request.codeChallenge, nonce: "", scope: "openid", userKey: "alice",
                authTime: now / 1000, amr: ["hwk"], expiresAt: now + 60_000
            ), at: now))
            let tokens = try await oidc.exchange(client: client, form: OIDCStorageTests.grant("oc_nn"))
            let claims = try #require(await runtime.tokens.verifySignature(tokens.idToken, as: RefreshedClaims.self))
            #expect(claims.nonce == nil)
            #expect(claims.authTime == now / 1000)
        }
    }

    @Test("the family ends with the refresh-token lifetime after the sign-in, however often it was refreshed; a removed user's refresh revokes the family")
    func lifetimeAndRemovedUser() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = InMemoryOIDCRepository()
            var oidc = Support.service(runtime, repository: repository)
            oidc.refreshTokenLifetime = .seconds(1000)
            let client = try await runtime.makeTestClient()
            try await Self.addAlice(runtime, client: client)
            var refresh = try #require(try await Self.signIn(runtime, oidc, repository, client: client, code: "oc_a", at: manual.clock.now()).refreshToken)
            for _ in 0..<3 {
                manual.advance(by: .seconds(300))
                refresh = try #require(try await oidc.exchange(client: client, form: Self.grant(refresh)).refreshToken)
            }
            manual.advance(by: .seconds(100))
            #expect(try await oidc.introspect(client: client, token: refresh) == .inactive)
            await OIDCStorageTests.expectOAuthError("invalid_grant") { _ = try await oidc.exchange(client: client, form: Self.grant(refresh)) }

            let fresh = try await Self.signIn(runtime, oidc, repository, client: client, code: "oc_b", at: manual.clock.now())
            try await runtime.database.transaction { sql in
                try await sql.raw("DELETE FROM users WHERE client_id = \(bind: client.id) AND user_key = 'alice'").run()
            }
            await OIDCStorageTests.expectOAuthError("invalid_grant") {
                _ = try await oidc.exchange(client: client, form: Self.grant(try #require(fresh.refreshToken)))
            }
            await OIDCStorageTests.expectOAuthError("invalid_token") { _ = try await oidc.userInfo(accessToken: fresh.accessToken) }
        }
    }

    @Test("RFC 7009: revoking an access token ends it alone; revoking a refresh token ends the sign-in; unknown tokens are ignored")
    func revocation() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = InMemoryOIDCRepository()
            let oidc = Support.service(runtime, repository: repository)
            let client = try await runtime.makeTestClient()
            try await Self.addAlice(runtime, client: client)
            let one = try await Self.signIn(runtime, oidc, repository, client: client, code: "oc_one", at: manual.clock.now())
            try await oidc.revoke(client: client, token: one.accessToken, hint: nil)
            #expect(try await oidc.introspect(client: client, token: one.accessToken) == .inactive)
            #expect(try await oidc.introspect(client: client, token: try #require(one.refreshToken)).active)

            // The hint names the wrong kind: the other kind is tried too.
            try await oidc.revoke(client: client, token: try #require(one.refreshToken), hint: "access_token")
            #expect(try await oidc.introspect(client: client, token: try #require(one.refreshToken)) == .inactive)

            let two = try await Self.signIn(runtime, oidc, repository, client: client, code: "oc_two", at: manual.clock.now())
            try await oidc.revoke(client: client, token: try #require(two.refreshToken), hint: "refresh_token")
            await OIDCStorageTests.expectOAuthError("invalid_token") { _ = try await oidc.userInfo(accessToken: two.accessToken) }
            try await oidc.revoke(client: client, token: "ort_unknown", hint: "refresh_token")
            try await oidc.revoke(client: client, token: String(repeating: "x", count: 500), hint: nil)
        }
    }
}
