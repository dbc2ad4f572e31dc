import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// The authorization endpoint's parameters, one clause of OIDC Core 1.0 (and RFC 6749) at a time,
/// against a live server over plain HTTP: what is used, what is refused and how (redirected with the
/// state, or shown), and the page's own ways out (Cancel, "Not you?").
@Suite("OpenID Connect: the authorization request", .serialized)
struct OIDCAuthorizationRequestTests {
    static let bundle = "com.example.oidc-request"
    static let redirect = OIDCFlowTests.redirect

    static func http() -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    }

    /// The authorization URL with `extra` added (or, with a nil value, removed).
    static func url(_ base: URL, clientKey: String, _ extra: [(String, String?)] = []) -> String {
        var components = URLComponents(string: OIDCFlowTests.authorizeURL(base, clientKey: clientKey)) ?? URLComponents()
        var items = components.queryItems ?? []
        for (name, value) in extra {
            if let value { items.append(URLQueryItem(name: name, value: value)) } else { items.removeAll { $0.name == name } }
        }
        components.queryItems = items
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? ""
    }

    /// The redirect's query, when the answer is a redirect to the client.
    static func callback(_ answer: OIDCFlowTests.Answer) -> [String: String]? {
        guard answer.status == 302, let location = answer.headers["Location"].first, location.hasPrefix(redirect + "?"),
              let items = URLComponents(string: location)?.queryItems
        else { return nil }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    static func with(_ body: @escaping @Sendable (TesseraRuntime, Client, URL, HTTPClient) async throws -> Void) async throws {
        try await LiveServer.run(bundleId: bundle) { runtime, client, url in
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [redirect]), clientKey: client.clientKey)
            let http = Self.http()
            do {
                try await body(runtime, client, url, http)
            } catch {
                try? await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    @Test("§3.1.2.1: the request by form POST gets the same identifier page as by GET; a body that is not a form gets an error page (415), not JSON")
    func formPost() async throws {
        try await Self.with { _, client, url, http in
            let query = try #require(URLComponents(string: Self.url(url, clientKey: client.clientKey))?.queryItems)
            let form = Dictionary(query.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            let posted = try await OIDCFlowTests.send(http, url.absoluteString + "/oauth2/authorize", form: form)
            #expect(posted.status == 200)
            #expect(posted.body.contains("id=\"identifier\"") && posted.body.contains("data-status=\"identify\""))
            let byGet = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey))
            #expect(OIDCFlowTests.normalized(posted.body) == OIDCFlowTests.normalized(byGet.body))

            var request = HTTPClientRequest(url: url.absoluteString + "/oauth2/authorize")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: #"{"client_id":"x"}"#))
            let response = try await http.execute(request, timeout: .seconds(60))
            #expect(response.status.code == 415)
            #expect(response.headers["Content-Type"].first?.hasPrefix("text/html") == true)
        }
    }

    @Test("§6 and §3.1.2.6: request, request_uri and registration are refused with their own errors and the state; discovery says so")
    func requestObjectsRefused() async throws {
        try await Self.with { _, client, url, http in
            for (parameter, error) in [
                ("request", "request_not_supported"), ("request_uri", "request_uri_not_supported"), ("registration", "registration_not_supported"),
            ] {
                let answer = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [(parameter, "eyJhbGciOiJub25lIn0.e30.")]))
                let callback = try #require(Self.callback(answer), "\(parameter): \(answer.status) \(answer.body)")
                #expect(callback["error"] == error)
                #expect(callback["state"] == "st-1")
                #expect(callback["code"] == nil)
            }
            let metadata = try await OIDCFlowTests.send(http, url.absoluteString + "/.well-known/openid-configuration")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(metadata.body.utf8)) as? [String: Any])
            // Discovery §3: request_uri_parameter_supported defaults to true when left out.
            #expect(json["request_uri_parameter_supported"] as? Bool == false)
            #expect(json["request_parameter_supported"] as? Bool == false)
            #expect(json["claims_parameter_supported"] as? Bool == false)
            #expect(json["response_modes_supported"] as? [String] == ["query"])
            #expect(json["prompt_values_supported"] as? [String] == ["consent", "login", "none", "select_account"])
        }
    }

    @Test("RFC 6749 §3.1: a parameter sent twice is invalid_request; client_id or redirect_uri twice is an error page, never a redirect")
    func repeatedParameters() async throws {
        try await Self.with { _, client, url, http in
            let twiceScope = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("scope", "openid")]))
            let callback = try #require(Self.callback(twiceScope))
            #expect(callback["error"] == "invalid_request")
            #expect(callback["error_description"] == "the parameter scope was sent more than once")
            #expect(callback["state"] == "st-1")
            for name in ["client_id", "redirect_uri"] {
                let value = name == "client_id" ? client.clientKey : Self.redirect
                let answer = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [(name, value)]))
                #expect(answer.status == 400, "\(name)")
                #expect(answer.headers["Location"].isEmpty, "\(name)")
                #expect(answer.body.contains("data-status=\"error\""), "\(name)")
            }
            // oidcc-ensure-redirect-uri-in-authorization-request: without redirect_uri, an error page, never a redirect.
            let noRedirect = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("redirect_uri", nil)]))
            #expect(noRedirect.status == 400 && noRedirect.headers["Location"].isEmpty)
        }
    }

    @Test("§3.1.2.1 prompt: none answers login_required (no session at Tessera); none with another value and unknown values are invalid_request; login, consent and select_account get the page")
    func prompt() async throws {
        try await Self.with { _, client, url, http in
            for (prompt, error) in [("none", "login_required"), ("none login", "invalid_request"), ("sideways", "invalid_request")] {
                let answer = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("prompt", prompt)]))
                let callback = try #require(Self.callback(answer), "\(prompt)")
                #expect(callback["error"] == error, "\(prompt)")
                #expect(callback["state"] == "st-1", "\(prompt)")
            }
            for prompt in ["login", "consent", "select_account", "login consent"] {
                let answer = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("prompt", prompt)]))
                #expect(answer.status == 200 && answer.body.contains("id=\"identifier\""), "\(prompt)")
            }
        }
    }

    @Test("§3.1.2.1 max_age, claims, response_mode, ui_locales, acr_values, display, unknown parameters, scope order: used or refused as the spec says; response_type missing is unsupported_response_type")
    func otherParameters() async throws {
        try await Self.with { _, client, url, http in
            for accepted: [(String, String?)] in [
                [("max_age", "0")], [("max_age", "3600")], [("claims", #"{"id_token":{"email":null}}"#)], [("response_mode", "query")],
                [("ui_locales", "de-CH en")], [("acr_values", "urn:mace:incommon:iap:silver")], [("display", "page")], [("display", "popup")],
                [("claims_locales", "de")], [("extra", "ignored")], [("scope", nil), ("scope", "email openid")],
            ] {
                let answer = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, accepted))
                #expect(answer.status == 200 && answer.body.contains("id=\"identifier\""), "\(accepted)")
            }
            for refused: [(String, String?)] in [
                [("max_age", "-1")], [("max_age", "soon")], [("max_age", "")], [("claims", "[1]")], [("claims", "{")],
                [("response_mode", "fragment")], [("response_mode", "form_post")], [("login_hint", String(repeating: "a", count: 255))],
            ] {
                let answer = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, refused))
                let callback = try #require(Self.callback(answer), "\(refused): \(answer.status)")
                #expect(callback["error"] == "invalid_request", "\(refused)")
                #expect(callback["state"] == "st-1", "\(refused)")
            }
            // oidcc-response-type-missing
            let missing = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("response_type", nil)]))
            #expect(Self.callback(missing)?["error"] == "unsupported_response_type")
            #expect(Self.callback(missing)?["state"] == "st-1")
        }
    }

    @Test("§3.1.2.1 login_hint and id_token_hint fill in the identifier; a hint issued to another client or not signed by this server is invalid_request")
    func hints() async throws {
        try await Self.with { runtime, client, url, http in
            let hinted = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("login_hint", "ann@example.com")]))
            #expect(hinted.body.contains(#"autofocus value="ann@example.com">"#), "\(hinted.body)")

            // An ID token of this server for this client, long expired: still a valid hint.
            let past = Date(timeIntervalSince1970: TimeInterval(runtime.clock.now() / 1000) - 7200)
            func idToken(audience: String) async throws -> String {
                try await runtime.tokens.sign(IDTokenClaims(
                    iss: .init(value: runtime.tokens.issuer), sub: .init(value: "ben"), aud: .init(value: [audience]),
                    exp: .init(value: past.addingTimeInterval(600)), iat: .init(value: past), authTime: Int64(past.timeIntervalSince1970),
                    nonce: nil, amr: ["hwk", "pin"], azp: audience
                ))
            }
            let expired = try await idToken(audience: client.clientKey)
            let page = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("id_token_hint", expired)]))
            #expect(page.status == 200)
            #expect(page.body.contains(#"autofocus value="ben">"#))

            let other = try await idToken(audience: "ck_someone_else")
            var parts = expired.split(separator: ".").map(String.init)
            parts[1] = Data(#"{"iss":"\#(runtime.tokens.issuer)","sub":"mallory","aud":["\#(client.clientKey)"]}"#.utf8).base64URLEncodedString()
            for bad in [other, parts.joined(separator: "."), "not-a-token"] {
                let answer = try await OIDCFlowTests.send(http, Self.url(url, clientKey: client.clientKey, [("id_token_hint", bad)]))
                let callback = try #require(Self.callback(answer))
                #expect(callback["error"] == "invalid_request")
                #expect(callback["error_description"] == "id_token_hint is not an ID token this server issued to this client")
            }
            // With prompt=none a valid hint still cannot sign in silently: there is no session at Tessera.
            let silent = try await OIDCFlowTests.send(
                http, Self.url(url, clientKey: client.clientKey, [("id_token_hint", expired), ("prompt", "none")])
            )
            #expect(Self.callback(silent)?["error"] == "login_required")
        }
    }

    /// The identifier page's request ID and form token.
    static func identifyPage(_ http: HTTPClient, _ url: URL, clientKey: String) async throws -> (id: String, csrf: String, body: String) {
        let page = try await OIDCFlowTests.send(http, Self.url(url, clientKey: clientKey))
        let id = try #require(page.body.firstMatch(of: /action="\/oauth2\/authorize\/(oar_[^\/"]+)\/identify"/)?.1)
        let csrf = try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        return (String(id), String(csrf), page.body)
    }

    @Test("Cancel on the page: back at the client with access_denied and the state; the ended request neither completes nor cancels again; a wrong form token is refused")
    func cancel() async throws {
        try await Self.with { _, client, url, http in
            let page = try await Self.identifyPage(http, url, clientKey: client.clientKey)
            #expect(page.body.contains(#"action="/oauth2/authorize/\#(page.id)/cancel""#))
            let forged = try await OIDCFlowTests.send(http, url.absoluteString + "/oauth2/authorize/\(page.id)/cancel", form: ["csrf": "csrf_forged"])
            #expect(forged.status == 404 && forged.headers["Location"].isEmpty)
            let cancelled = try await OIDCFlowTests.send(http, url.absoluteString + "/oauth2/authorize/\(page.id)/cancel", form: ["csrf": page.csrf])
            let callback = try #require(Self.callback(cancelled), "\(cancelled.status) \(cancelled.body)")
            #expect(callback == ["error": "access_denied", "error_description": "the user cancelled the sign-in", "state": "st-1"])
            let again = try await OIDCFlowTests.send(http, url.absoluteString + "/oauth2/authorize/\(page.id)/cancel", form: ["csrf": page.csrf])
            #expect(again.status == 404)
            let identify = try await OIDCFlowTests.send(
                http, url.absoluteString + "/oauth2/authorize/\(page.id)/identify", form: ["csrf": page.csrf, "identifier": "someone"]
            )
            #expect(identify.status == 404)
        }
    }

    @Test("\"Not you?\" while the phone is asked: the phone's request is cancelled, a new identifier form comes with the same state, and the old request has ended")
    func notYou() async throws {
        try await Self.with { runtime, client, url, http in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "cleo", bundleId: Self.bundle)
            let page = try await Self.identifyPage(http, url, clientKey: client.clientKey)
            let waiting = try await OIDCFlowTests.send(
                http, url.absoluteString + "/oauth2/authorize/\(page.id)/identify", form: ["csrf": page.csrf, "identifier": "cleo"]
            )
            #expect(waiting.body.contains(#"id="not-you""#) && waiting.body.contains(#"id="cancel""#))
            #expect(try await tessera.pendingAuthRequests().count == 1)
            let restarted = try await OIDCFlowTests.send(http, url.absoluteString + "/oauth2/authorize/\(page.id)/restart", form: ["csrf": page.csrf])
            #expect(restarted.status == 200)
            #expect(restarted.body.contains("id=\"identifier\"") && !restarted.body.contains("value=\"cleo\""))
            let newId = try #require(restarted.body.firstMatch(of: /action="\/oauth2\/authorize\/(oar_[^\/"]+)\/identify"/)?.1)
            #expect(String(newId) != page.id)
            // The phone's request ended as cancelled: the device has nothing left to approve.
            #expect(try await tessera.pendingAuthRequests().isEmpty)
            let status = try await OIDCFlowTests.send(http, url.absoluteString + "/oauth2/authorize/\(page.id)/status?csrf=\(page.csrf)&wait=0")
            #expect(status.status == 404)
            // The new request carries the old one's state back to the client.
            let newCsrf = try #require(restarted.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
            let cancelled = try await OIDCFlowTests.send(http, url.absoluteString + "/oauth2/authorize/\(newId)/cancel", form: ["csrf": String(newCsrf)])
            #expect(Self.callback(cancelled)?["state"] == "st-1")
        }
    }
}
