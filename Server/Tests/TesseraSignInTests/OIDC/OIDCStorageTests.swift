import Foundation
import JWTKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The OIDC domain's storage and token endpoint logic on SQLite and PostgreSQL: settings, codes
/// (single use, 60 s, bound to client, redirect URI and PKCE), access tokens revoked by a reused
/// code, and the sign-in page's limits.
@Suite("OIDC: storage, codes and limits")
struct OIDCStorageTests {
    static let redirect = "https://app.example.com/callback"
    static let verifier = String(repeating: "a", count: 43)

    /// A pending request completed with a code, as the page's completion does after approval.
    static func issueCode(_ runtime: TesseraRuntime, client: Client, code: String, at now: Int64) async throws {
        let request = OIDCPendingRequest(
            id: "oar_\(code)", clientId: client.id, clientKey: client.clientKey, redirectUri: redirect, state: "s", nonce: "n",
            codeChallenge: OIDCService.challenge(of: verifier), scope: "openid email", csrfHash: "x", createdAt: now, expiresAt: now + 600_000
        )
        try await runtime.repositories.oidc.insert(request)
        let record = OIDCCode(
            codeHash: runtime.keys.hasher.hash(code, domain: OIDCService.codeDomain), requestId: request.id, clientId: client.id,
            redirectUri: redirect, codeChallenge: request.codeChallenge, nonce: "n", scope: "openid email", userKey: "alice",
            authTime: now / 1000, amr: ["hwk", "pin"], expiresAt: now + 60_000
        )
        #expect(try await runtime.repositories.oidc.complete(request.id, code: record, at: now))
        // A request completes once.
        #expect(try await runtime.repositories.oidc.complete(request.id, code: record, at: now) == false)
    }

    static func grant(_ code: String, verifier: String = verifier, redirect: String = redirect) -> [String: String] {
        ["grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "code_verifier": verifier]
    }

    static func expectOAuthError(_ expected: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(expected)")
        } catch let error as OIDCService.OAuthError {
            #expect(error.error == expected)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("settings round-trip; redirect URIs must be absolute http(s) without a fragment", arguments: TestDatabase.kinds)
    func settings(_ kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.clients.create(name: "Web", bundleIds: ["com.example.web"]).client
            #expect(try await runtime.oidc.settings(clientKey: client.clientKey).redirectUris.isEmpty)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect, "http://127.0.0.1:8000/cb"]), clientKey: client.clientKey)
            #expect(try await runtime.oidc.settings(clientKey: client.clientKey).redirectUris == [Self.redirect, "http://127.0.0.1:8000/cb"])
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            #expect(try await runtime.oidc.settings(clientKey: client.clientKey).redirectUris == [Self.redirect])
            for bad in ["/callback", "javascript:alert(1)", "https://app.example.com/cb#frag", "ftp://x.example/cb"] {
                await #expect(throws: AppError.self) { _ = try await runtime.oidc.setSettings(.init(redirectUris: [bad]), clientKey: client.clientKey) }
            }
        }
    }

    @Test("a code works once, within 60 s, for its client, redirect URI and verifier; a reuse revokes its access token", arguments: TestDatabase.kinds)
    func codes(_ kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let client = try await runtime.clients.create(name: "Web", bundleIds: ["com.example.web"]).client
            let other = try await runtime.clients.create(name: "Other", bundleIds: ["com.example.other"]).client
            try await Self.issueCode(runtime, client: client, code: "oc_one", at: manual.clock.now())
            await Self.expectOAuthError("invalid_grant") { _ = try await runtime.oidc.exchange(client: other, form: Self.grant("oc_one")) }
            await Self.expectOAuthError("invalid_grant") {
                _ = try await runtime.oidc.exchange(client: client, form: Self.grant("oc_one", verifier: String(repeating: "b", count: 43)))
            }
            await Self.expectOAuthError("invalid_grant") {
                _ = try await runtime.oidc.exchange(client: client, form: Self.grant("oc_one", redirect: Self.redirect + "/"))
            }
            await Self.expectOAuthError("invalid_grant") { _ = try await runtime.oidc.exchange(client: client, form: Self.grant("oc_unknown")) }
            await Self.expectOAuthError("unsupported_grant_type") {
                _ = try await runtime.oidc.exchange(client: client, form: Self.grant("oc_one").merging(["grant_type": "password"]) { $1 })
            }
            let tokens = try await runtime.oidc.exchange(client: client, form: Self.grant("oc_one"))
            #expect(try await runtime.oidc.userInfo(accessToken: tokens.accessToken)["sub"] == "alice")
            // Verified with the published JWKS alone, as a relying party does.
            let jwks = String(decoding: try JSONEncoder().encode(["keys": try await runtime.tokens.jwks]), as: UTF8.self)
            let claims = try await JWTKeyCollection().add(jwksJSON: jwks).verify(tokens.idToken, as: IDTokenClaims.self)
            #expect(claims.sub.value == "alice" && claims.aud.value == [client.clientKey] && claims.nonce == "n" && claims.amr == ["hwk", "pin"])
            #expect(claims.iss.value == runtime.tokens.issuer)
            await Self.expectOAuthError("invalid_grant") { _ = try await runtime.oidc.exchange(client: client, form: Self.grant("oc_one")) }
            await Self.expectOAuthError("invalid_token") { _ = try await runtime.oidc.userInfo(accessToken: tokens.accessToken) }

            try await Self.issueCode(runtime, client: client, code: "oc_two", at: manual.clock.now())
            manual.advance(by: .seconds(61))
            await Self.expectOAuthError("invalid_grant") { _ = try await runtime.oidc.exchange(client: client, form: Self.grant("oc_two")) }
        }
    }

    @Test("the page: a wrong form token is refused, an identifier once per request, 5 tries per identifier in 10 minutes", arguments: TestDatabase.kinds)
    func pageLimits(_ kind: TestDatabase) async throws {
        // A manual clock in the middle of a 10-minute window (the limit's): a run across a window's
        // end on the system clock counted the tries in two windows.
        try await withTestRuntime(kind, clock: ManualClock(start: 1_800_002_100_000).clock) { runtime in
            let client = try await runtime.clients.create(name: "Web", bundleIds: ["com.example.web"]).client
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            let query = [
                "client_id": client.clientKey, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid",
                "code_challenge": OIDCService.challenge(of: Self.verifier), "code_challenge_method": "S256",
            ]
            func open() async throws -> (String, String) {
                guard case .page(let request, let csrf, _, _) = try await runtime.oidc.authorize(query) else { throw ConfigurationError("no page") }
                return (request.id, csrf)
            }
            let (id, csrf) = try await open()
            await expectCode(.oidcAuthorizationUnknown) { _ = try await runtime.oidc.identify(id, csrf: csrf + "x", identifier: "x@example.com", ip: "192.0.2.1") }
            _ = try await runtime.oidc.identify(id, csrf: csrf, identifier: "x@example.com", ip: "192.0.2.1")
            await expectCode(.oidcAuthorizationUnknown) { _ = try await runtime.oidc.identify(id, csrf: csrf, identifier: "x@example.com", ip: "192.0.2.1") }
            for _ in 0..<3 {
                let (id, csrf) = try await open()
                _ = try await runtime.oidc.identify(id, csrf: csrf, identifier: "X@example.com", ip: "192.0.2.1")
            }
            let (last, lastCsrf) = try await open()
            await expectCode(.oidcRateLimited) { _ = try await runtime.oidc.identify(last, csrf: lastCsrf, identifier: "x@example.com", ip: "192.0.2.1") }
        }
    }
}
