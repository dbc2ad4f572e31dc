import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// ``OIDCService``'s rules over ``InMemoryOIDCRepository``: the OIDC storage is the double (its
/// contract is OIDCRepositoryConformanceTests'), the other collaborators (clients, users, tokens,
/// the relying-party flow) come from a test runtime on SQLite, which never sees an `oidc_*` row.
@Suite("OIDC: the service over the in-memory repository")
struct OIDCServiceInMemoryTests {
    static let redirect = OIDCStorageTests.redirect

    /// The runtime's OIDC service with `repository` in place of the SQL one, built as SignInDomain builds it.
    static func service(_ runtime: TesseraRuntime, repository: any OIDCRepository) -> OIDCService {
        let base = runtime.oidc
        return OIDCService(
            repository: repository, database: base.database, clients: base.clients, users: base.users, relyingParty: base.relyingParty,
            relay: base.relay, tokens: base.tokens, hasher: base.hasher, random: base.random, clock: base.clock, channelLifetime: base.channelLifetime
        )
    }

    /// A pending request completed with the code `code` in `repository`, as the page's completion does after approval.
    static func issueCode(_ runtime: TesseraRuntime, _ repository: InMemoryOIDCRepository, client: Client, code: String, at now: Int64) async throws {
        let request = OIDCPendingRequest(
            id: "oar_\(code)", clientId: client.id, clientKey: client.clientKey, redirectUri: redirect, state: "s", nonce: "n",
            codeChallenge: OIDCService.challenge(of: OIDCStorageTests.verifier), scope: "openid", csrfHash: "x", createdAt: now,
            expiresAt: now + 600_000
        )
        try await repository.insert(request)
        let record = OIDCCode(
            codeHash: runtime.keys.hasher.hash(code, domain: OIDCService.codeDomain), requestId: request.id, clientId: client.id,
            redirectUri: redirect, codeChallenge: request.codeChallenge, nonce: "n", scope: "openid", userKey: "alice",
            authTime: now / 1000, amr: ["hwk"], expiresAt: now + 60_000
        )
        #expect(try await repository.complete(request.id, code: record, at: now))
    }

    @Test("a code exchanged twice is refused the second time, and the access token of the first exchange stops working")
    func codeExchangedTwice() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = InMemoryOIDCRepository()
            let oidc = Self.service(runtime, repository: repository)
            let client = try await runtime.makeTestClient()
            try await Self.issueCode(runtime, repository, client: client, code: "oc_one", at: manual.clock.now())
            let codeHash = runtime.keys.hasher.hash("oc_one", domain: OIDCService.codeDomain)

            let tokens = try await oidc.exchange(client: client, form: OIDCStorageTests.grant("oc_one"))
            #expect(try await oidc.userInfo(accessToken: tokens.accessToken)["sub"] == "alice")
            #expect(try await repository.code(hash: codeHash)?.usedAt == manual.clock.now())

            manual.advance(by: .seconds(1))
            await OIDCStorageTests.expectOAuthError("invalid_grant") { _ = try await oidc.exchange(client: client, form: OIDCStorageTests.grant("oc_one")) }
            await OIDCStorageTests.expectOAuthError("invalid_token") { _ = try await oidc.userInfo(accessToken: tokens.accessToken) }
            let tokenHash = runtime.keys.hasher.hash(tokens.accessToken, domain: OIDCService.tokenDomain)
            #expect(try await repository.token(hash: tokenHash)?.revokedAt == manual.clock.now())
            // All of it in the double: the runtime's SQL repository never saw the code.
            #expect(try await runtime.repositories.oidc.code(hash: codeHash) == nil)
        }
    }

    @Test("a code is refused once its 60 s have passed, and stays unused")
    func expiredCode() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = InMemoryOIDCRepository()
            let oidc = Self.service(runtime, repository: repository)
            let client = try await runtime.makeTestClient()
            try await Self.issueCode(runtime, repository, client: client, code: "oc_late", at: manual.clock.now())
            manual.advance(by: .seconds(60))
            await OIDCStorageTests.expectOAuthError("invalid_grant") { _ = try await oidc.exchange(client: client, form: OIDCStorageTests.grant("oc_late")) }
            #expect(try await repository.code(hash: runtime.keys.hasher.hash("oc_late", domain: OIDCService.codeDomain))?.usedAt == nil)
        }
    }

    @Test("authorize: an unregistered redirect URI gets the error page; a registered one a pending request in the repository")
    func authorizeRedirectURI() async throws {
        try await withTestRuntime(.sqlite, clock: ManualClock().clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = InMemoryOIDCRepository()
            let oidc = Self.service(runtime, repository: repository)
            let client = try await runtime.makeTestClient()
            let query = [
                "client_id": client.clientKey, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid", "state": "st",
                "code_challenge": OIDCService.challenge(of: OIDCStorageTests.verifier), "code_challenge_method": "S256",
            ]
            // No settings yet: no redirect URI is registered.
            guard case .errorPage = try await oidc.authorize(query) else { Issue.record("expected the error page"); return }

            _ = try await oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            #expect(try await repository.settings(clientId: client.id)?.redirectUris == [Self.redirect])
            #expect(try await runtime.repositories.oidc.settings(clientId: client.id) == nil)
            for unregistered in [Self.redirect + "/", "https://evil.example/callback", Self.redirect.uppercased()] {
                var other = query
                other["redirect_uri"] = unregistered
                guard case .errorPage = try await oidc.authorize(other) else { Issue.record("expected the error page for \(unregistered)"); continue }
            }

            guard case .page(let request, let csrf, _, _) = try await oidc.authorize(query) else { Issue.record("expected the page"); return }
            let stored = try #require(try await repository.request(request.id))
            #expect(stored.clientId == client.id && stored.redirectUri == Self.redirect && stored.state == "st" && stored.completedAt == nil)
            #expect(try await oidc.pending(request.id, csrf: csrf).id == request.id)
        }
    }
}
