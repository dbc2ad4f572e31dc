import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// The OpenID Connect provider and its hosted sign-in page against a live server: a real OIDC
/// client library (Authlib, in Tests/Fixtures/oidc_client.py) plays the relying party and the
/// browser's form posts, and a device enrolled through the SDK approves or declines.
@Suite("OpenID Connect: hosted sign-in page")
struct OIDCFlowTests {
    static let bundle = "com.example.oidc"
    static let redirect = "http://127.0.0.1:9/callback"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/oidc_client.py").path

    /// Runs the Authlib relying party (TESSERA_TEST_PYTHON with authlib and requests; without it the test fails naming it).
    static func relyingParty(
        _ mode: String, url: URL, client: Client, secret: String, identifier: String, extra: [String] = []
    ) throws -> Task<(status: Int32, output: String), any Error> {
        let python = try TestRequirements.python(importing: ["authlib", "requests"], for: "the Authlib relying party")
        return Task {
            try await DeviceCLITests.run(
                URL(fileURLWithPath: python), [script, mode, url.absoluteString, client.clientKey, secret, redirect, identifier] + extra, timeout: 600
            )
        }
    }

    /// The JSON object the script prints last.
    static func result(_ run: (status: Int32, output: String)) throws -> [String: Any] {
        let line = try #require(run.output.split(separator: "\n").last, "\(run.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output)")
    }

    @Test("Authlib signs in: page, device approval, code, ID token verified through the JWKS; wrong verifier, redirect URI, secret and a reused code refused")
    func authlibFlow() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "olivia", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let flow = try Self.relyingParty("approve", url: url, client: client, secret: secret, identifier: "Olivia@example.com")
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            #expect(pending.message == "Sign in to SDK test")
            #expect(pending.connectIp == "127.0.0.1")
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            let run = try await flow.value
            #expect(run.status == 0, "\(run.output)")
            let result = try Self.result(run)
            let claims = try #require(result["claims"] as? [String: Any], "\(run.output)")
            #expect(result["alg"] as? String == "ES256")
            // OIDC Discovery §3 (oidcc-discovery-endpoint-verification), as Authlib's metadata model validates it.
            #expect(result["discovery_valid"] as? Bool == true, "\(result["discovery_valid"] ?? "")")
            #expect(claims["sub"] as? String == "olivia")
            #expect(claims["aud"] as? String == client.clientKey || (claims["aud"] as? [String]) == [client.clientKey])
            #expect(claims["iss"] as? String == runtime.tokens.issuer)
            #expect(claims["amr"] as? [String] == ["hwk", "pin"])
            #expect(claims["auth_time"] is Int)
            // oidcc-scope-all: the claims of every scope the user has (no address: none is kept).
            let userinfo = result["userinfo"] as? [String: String] ?? [:]
            #expect(Set(userinfo.keys) == ["sub", "email", "name", "phone_number"], "\(userinfo)")
            #expect(userinfo["sub"] == "olivia" && userinfo["email"] == "olivia@example.com" && userinfo["name"] == "User olivia")
            #expect(userinfo["phone_number"]?.hasPrefix("+4179") == true)
            #expect(claims["name"] as? String == "User olivia")
            #expect((result["userinfo_post_header"] as? [Any])?.first as? Int == 200)
            #expect(((result["userinfo_post_header"] as? [Any])?[1] as? [String: String]) == userinfo)
            #expect((result["wrong_verifier"] as? [Any])?.first as? Int == 400)
            #expect(((result["wrong_verifier"] as? [Any])?[1] as? [String: String])?["error"] == "invalid_grant")
            #expect((result["wrong_verifier"] as? [Any])?[2] as? String == "no-store")
            #expect(((result["wrong_redirect"] as? [Any])?[1] as? [String: String])?["error"] == "invalid_grant")
            #expect((result["wrong_secret"] as? [Any])?.first as? Int == 401)
            #expect(((result["wrong_secret"] as? [Any])?[1] as? [String: String])?["error"] == "invalid_client")
            #expect((result["wrong_secret"] as? [Any])?[2] as? String == "Basic realm=\"tessera\"")
            // RFC 6749 §5.2: a secret sent in the body gets the challenge of a scheme the server supports, not Bearer.
            #expect((result["wrong_secret_post"] as? [Any])?.first as? Int == 401)
            #expect(((result["wrong_secret_post"] as? [Any])?[1] as? [String: String])?["error"] == "invalid_client")
            #expect((result["wrong_secret_post"] as? [Any])?[2] as? String == "Basic realm=\"tessera\"")
            // OIDC Core §3.1.3.6: at_hash, checked by Authlib's CodeIDToken against the access token; e-mail with the email scope.
            #expect(claims["at_hash"] is String)
            #expect(claims["email"] as? String == "olivia@example.com")
            // RFC 6750 §2.2: the token in a form body; in the header and the body at once is invalid_request.
            #expect((result["userinfo_post_body"] as? [Any])?.first as? Int == 200)
            #expect(((result["userinfo_post_body"] as? [Any])?[1] as? [String: String])?["sub"] == "olivia")
            #expect((result["userinfo_both"] as? [Any])?.first as? Int == 400)
            #expect((result["userinfo_both"] as? [Any])?[1] as? String == "invalid_request")
            #expect((result["reused"] as? [Any])?.first as? Int == 400)
            #expect(((result["reused"] as? [Any])?[1] as? [String: String])?["error"] == "invalid_grant")
            #expect(result["userinfo_after_reuse"] as? Int == 401)
        }
    }

    @Test("a client set to RS256 (OIDC Core §15.1): its ID token is RS256, with a key the JWKS published before, verified by Authlib; other clients stay ES256")
    func rs256Client() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "sven", bundleId: Self.bundle)
            #expect(try await runtime.tokens.jwks.allSatisfy { $0.alg == "ES256" })
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect], idTokenSignedResponseAlg: "RS256"), clientKey: client.clientKey)
            // The RSA keys (the one that signs and the upcoming one) are published as soon as a client asks for
            // RS256, before anything is signed with them.
            let published = try await runtime.tokens.jwks
            #expect(published.filter { $0.alg == "RS256" && $0.kty == "RSA" && $0.n != nil && $0.e == "AQAB" }.count == 2)
            #expect(published.filter { $0.alg == "ES256" }.count == 2)
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let flow = try Self.relyingParty("approve", url: url, client: client, secret: secret, identifier: "sven")
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            let run = try await flow.value
            #expect(run.status == 0, "\(run.output)")
            let result = try Self.result(run)
            #expect(result["alg"] as? String == "RS256")
            #expect((result["claims"] as? [String: Any])?["sub"] as? String == "sven")
            #expect(result["discovery_valid"] as? Bool == true)
            // A rotation rotates RS256 as ES256: the upcoming key signs, the one before stays, a new upcoming one is published.
            try await runtime.tokens.rotate()
            let rotated = try await runtime.tokens.jwks
            #expect(rotated.filter { $0.alg == "RS256" }.count == 3)
            #expect(rotated.filter { $0.alg == "ES256" }.count == 3)
            // An algorithm that is not offered is refused.
            await #expect(throws: AppError.self) {
                _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect], idTokenSignedResponseAlg: "HS256"), clientKey: client.clientKey)
            }
        }
    }

    @Test("offline_access with Authlib: refresh tokens rotate (OIDC Core §12, RFC 6749 §6), a reused one revokes the family (RFC 9700 §4.14.2); introspection (RFC 7662) and revocation (RFC 7009)")
    func offlineAccess() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "rhea", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let flow = try Self.relyingParty("offline", url: url, client: client, secret: secret, identifier: "rhea")
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            let run = try await flow.value
            #expect(run.status == 0, "\(run.output)")
            let offline = try #require(try Self.result(run)["offline"] as? [String: Any], "\(run.output)")
            #expect(offline["first_refresh"] as? Bool == true)
            #expect(offline["rotated"] as? Bool == true)
            // §12.2: the same iss, sub, aud, auth_time and azp; no nonce.
            #expect(offline["same_sign_in"] as? Bool == true)
            #expect(offline["refreshed_nonce"] is NSNull)
            #expect(offline["refreshed_scope"] as? String == "openid email offline_access")
            #expect((offline["userinfo"] as? [String: String])?["email"] == "rhea@example.com")
            #expect((offline["narrow"] as? [Any])?.first as? Int == 200)
            #expect((offline["narrow"] as? [Any])?[1] as? String == "openid")
            #expect((offline["narrow_userinfo"] as? [String: String]) == ["sub": "rhea"])
            #expect((offline["wide"] as? [Any])?.first as? Int == 400)
            #expect((offline["wide"] as? [Any])?[1] as? String == "invalid_scope")
            let access = offline["introspect_access"] as? [String: Any] ?? [:]
            #expect(access["active"] as? Bool == true)
            #expect(access["sub"] as? String == "rhea")
            #expect(access["client_id"] as? String == client.clientKey)
            #expect(access["scope"] as? String == "openid email offline_access")
            #expect(access["token_type"] as? String == "Bearer")
            #expect((offline["introspect_refresh"] as? [String: Any])?["active"] as? Bool == true)
            #expect((offline["introspect_refresh"] as? [String: Any])?["token_type"] as? String == "refresh_token")
            #expect((offline["introspect_used"] as? [String: Any])?.count == 1)
            #expect((offline["introspect_used"] as? [String: Any])?["active"] as? Bool == false)
            #expect((offline["introspect_garbage"] as? [String: Any])?["active"] as? Bool == false)
            #expect(offline["revoke_status"] as? Int == 200)
            #expect(offline["revoked_userinfo"] as? Int == 401)
            #expect(offline["revoke_unknown"] as? Int == 200)
            #expect((offline["reuse"] as? [Any])?.first as? Int == 400)
            #expect((offline["reuse"] as? [Any])?[1] as? String == "invalid_grant")
            #expect((offline["after_reuse"] as? [Any])?[1] as? String == "invalid_grant")
            #expect(offline["after_reuse_userinfo"] as? Int == 401)
            #expect((offline["after_reuse_introspect"] as? [String: Any])?["active"] as? Bool == false)
        }
    }

    @Test("declined on the device: the browser goes back to the client with error=access_denied and the state, no code (OIDC Core 3.1.2.6)")
    func declined() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "paul", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let flow = try Self.relyingParty("decline", url: url, client: client, secret: secret, identifier: "paul")
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            try await tessera.declineAuthRequest(pending)
            let run = try await flow.value
            #expect(run.status == 0, "\(run.output)")
            let result = try Self.result(run)
            #expect((result["statuses"] as? [String])?.last == "declined")
            #expect(result["complete_status"] as? Int == 302)
            #expect(result["callback_base"] as? String == Self.redirect)
            let callback = result["callback"] as? [String: String] ?? [:]
            #expect(callback["error"] == "access_denied", "\(callback)")
            #expect(callback["error_description"] == "the user declined the sign-in on their phone", "\(callback)")
            #expect(callback["code"] == nil)
            #expect(result["state_matches"] as? Bool == true, "\(callback)")
            // Ended: the completion does not answer twice.
            #expect(result["complete_again"] as? Int == 404)
        }
    }

    // MARK: Without the library: plain HTTP

    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    static func send(_ http: HTTPClient, _ url: String, form: [String: String]? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        if let form {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await http.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
    }

    static func authorizeURL(_ base: URL, clientKey: String, redirect: String = Self.redirect, pkce: Bool = true, responseType: String = "code") -> String {
        var components = URLComponents(string: base.absoluteString + "/oauth2/authorize") ?? URLComponents()
        components.queryItems = [
            URLQueryItem(name: "client_id", value: clientKey), URLQueryItem(name: "redirect_uri", value: redirect),
            URLQueryItem(name: "response_type", value: responseType), URLQueryItem(name: "scope", value: "openid email"),
            URLQueryItem(name: "state", value: "st-1"), URLQueryItem(name: "nonce", value: "n-1"),
        ] + (pkce ? [
            URLQueryItem(name: "code_challenge", value: OIDCService.challenge(of: String(repeating: "v", count: 43))),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ] : [])
        return components.string ?? ""
    }

    /// The page's answers with what differs per request (IDs, form tokens, CSP nonces) blanked out.
    static func normalized(_ html: String) -> String {
        html.replacing(/oar_[A-Za-z0-9_-]+/, with: "ID").replacing(/csrf=[^"&]+/, with: "csrf=T").replacing(/name="csrf" value="[^"]+"/, with: "name=csrf value=T").replacing(/nonce="[^"]+"/, with: "nonce=N")
            .replacing(/data-csrf="[^"]+"/, with: "data-csrf=T")
    }

    @Test("foreign redirect URI or unknown client: an error page, never a redirect; missing PKCE and other errors redirect with state")
    func authorizeErrors() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }
            for bad in [
                Self.authorizeURL(url, clientKey: client.clientKey, redirect: "https://evil.example/callback"),
                Self.authorizeURL(url, clientKey: client.clientKey, redirect: Self.redirect + "/"),
                Self.authorizeURL(url, clientKey: "ck_unknown"),
            ] {
                let answer = try await Self.send(http, bad)
                #expect(answer.status == 400, "\(bad)")
                #expect(answer.headers["Location"].isEmpty)
                #expect(answer.body.contains("data-status=\"error\""))
            }
            let noPKCE = try await Self.send(http, Self.authorizeURL(url, clientKey: client.clientKey, pkce: false))
            #expect(noPKCE.status == 302)
            let location = try #require(noPKCE.headers["Location"].first)
            #expect(location.hasPrefix(Self.redirect + "?error=invalid_request&"), "\(location)")
            #expect(location.hasSuffix("&state=st-1"), "\(location)")
            let implicit = try await Self.send(http, Self.authorizeURL(url, clientKey: client.clientKey, responseType: "token"))
            #expect(implicit.headers["Location"].first?.hasPrefix(Self.redirect + "?error=unsupported_response_type&") == true)
            // The page itself: headers that keep it out of frames and caches, and a CSP without third-party sources.
            let page = try await Self.send(http, Self.authorizeURL(url, clientKey: client.clientKey))
            #expect(page.status == 200)
            #expect(page.headers["X-Frame-Options"] == ["DENY"])
            #expect(page.headers["Cache-Control"] == ["no-store"])
            #expect(page.headers["Content-Security-Policy"].first?.hasPrefix("default-src 'self'; script-src 'nonce-") == true)
            #expect(page.body.contains("id=\"identifier\"") && page.body.contains("id=\"submit\""))
        }
    }

    @Test("an unknown user gets the same page and answers as a known one; both end as expired, back at the client with login_required and the state")
    func unknownLooksKnownAndExpires() async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await LiveServer.run(bundleId: Self.bundle, clock: manual.clock, configure: { $0.channelLifetime = .seconds(30) }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "quinn", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }
            var answers: [(identify: Answer, statusURL: String, completeURL: String)] = []
            for identifier in ["quinn@example.com", "nobody@example.com"] {
                let page = try await Self.send(http, Self.authorizeURL(url, clientKey: client.clientKey))
                let action = try #require(page.body.firstMatch(of: /action="([^"]+)"/)?.1)
                let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
                let identify = try await Self.send(http, url.absoluteString + action, form: ["csrf": String(csrf), "identifier": identifier])
                let status = try #require(identify.body.firstMatch(of: /data-status-url="([^"]+)"/)?.1).replacing("&amp;", with: "&")
                let complete = try #require(identify.body.firstMatch(of: /data-complete-url="([^"]+)"/)?.1).replacing("&amp;", with: "&")
                answers.append((identify, url.absoluteString + status, url.absoluteString + complete))
            }
            #expect(answers[0].identify.status == 200 && answers[1].identify.status == 200)
            #expect(Self.normalized(answers[0].identify.body) == Self.normalized(answers[1].identify.body))
            for answer in answers {
                #expect(try await Self.send(http, answer.statusURL + "&wait=0").body == #"{"status":"waiting"}"#)
            }
            // The known user's device has the request; the unknown one has none, and nothing tells them apart.
            #expect(await eventually { (try? await tessera.pendingAuthRequests().count) == 1 })
            manual.advance(by: .seconds(31))
            for answer in answers {
                #expect(try await Self.send(http, answer.statusURL + "&wait=0").body == #"{"status":"expired"}"#)
                let complete = try await Self.send(http, answer.completeURL)
                #expect(complete.status == 302)
                #expect(complete.headers["Location"] == [
                    Self.redirect + "?error=login_required&error_description=the%20sign-in%20expired%20before%20it%20was%20approved%20on%20the%20phone&state=st-1",
                ])
            }
        }
    }
}
