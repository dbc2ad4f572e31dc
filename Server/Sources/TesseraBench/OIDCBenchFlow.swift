import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import Tessera
import TesseraCore

/// One OpenID Connect sign-in as `tessera-bench oidc` runs it: the browser's requests on the hosted
/// page, the device's approval, the relying party's token exchange and ID token check.
struct OIDCBenchFlow: Sendable {
    let http: HTTPClient
    let base: String
    let clientId: String
    let clientSecret: String
    let redirectUri: String
    let keys: JWTKeyCollection
    let issuer: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What the bench reads of an ID token.
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var nonce: String?

        func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
    }

    /// The hosted page of a new authorization: its form's action and CSRF token.
    func openPage(
        challenge: String, state: String, nonce: String, scope: String = "openid email", from address: String
    ) async throws -> (action: String, csrf: String) {
        var authorize = URLComponents(string: base + "/oauth2/authorize") ?? URLComponents()
        authorize.queryItems = [
            .init(name: "client_id", value: clientId), .init(name: "redirect_uri", value: redirectUri), .init(name: "response_type", value: "code"),
            .init(name: "scope", value: scope), .init(name: "state", value: state), .init(name: "nonce", value: nonce),
            .init(name: "code_challenge", value: challenge), .init(name: "code_challenge_method", value: "S256"),
        ]
        let page = try await send(authorize.string ?? "", from: address)
        guard page.status == 200 else { throw Failure(description: "authorize: HTTP \(page.status)") }
        return (try Self.attribute(page.body, after: #"<form method="post" action=""#), try Self.attribute(page.body, after: #"name="csrf" value=""#))
    }

    /// Posts the page's identifier form.
    func identify(_ page: (action: String, csrf: String), identifier: String, from address: String) async throws -> Answer {
        try await send(base + page.action, form: ["csrf": page.csrf, "identifier": identifier], from: address)
    }

    /// A sign-in under way: what the relying party keeps, and the page's ID and form token.
    struct Started: Sendable {
        var verifier: String
        var state: String
        var nonce: String
        /// `/oauth2/authorize/{id}`.
        var requestPath: String
        var csrf: String
    }

    /// Opens the hosted page of a new authorization (PKCE S256, state, nonce).
    func start(scope: String = "openid email", from address: String) async throws -> Started {
        let verifier = PKCE.randomToken(), state = PKCE.randomToken(byteCount: 16), nonce = PKCE.randomToken(byteCount: 16)
        let page = try await openPage(challenge: PKCE.challenge(of: verifier), state: state, nonce: nonce, scope: scope, from: address)
        guard page.action.hasSuffix("/identify") else { throw Failure(description: "the page's form goes to \(page.action)") }
        return Started(verifier: verifier, state: state, nonce: nonce, requestPath: String(page.action.dropLast("/identify".count)), csrf: page.csrf)
    }

    /// The user types `email` and the device approves at once; answers the page's completion URL once the page says approved.
    func approve(_ started: Started, email: String, device: TesseraClient, from address: String) async throws -> String {
        let waiting = try await identify((started.requestPath + "/identify", started.csrf), identifier: email, from: address)
        guard waiting.status == 200 else { throw Failure(description: "identify: HTTP \(waiting.status)") }
        let statusURL = try Self.attribute(waiting.body, after: #"data-status-url=""#)
        let completeURL = try Self.attribute(waiting.body, after: #"data-complete-url=""#)

        try await Self.approveOnDevice(device)

        var status = "waiting"
        while status == "waiting" || status == "verifying" {
            let answer = try await send(base + statusURL + "&wait=25", from: address)
            status = (try? JSONDecoder().decode([String: String].self, from: Data(answer.body.utf8)))?["status"] ?? "unreadable"
        }
        guard status == "approved" else { throw Failure(description: "the page ended \(status)") }
        return completeURL
    }

    /// The device: finds the request (it polls; no push token here) and approves it.
    static func approveOnDevice(_ device: TesseraClient) async throws {
        var pending: AuthChannelResponse?
        for _ in 0..<500 where pending == nil {
            pending = try await device.pendingAuthRequests().first
            if pending == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        guard let pending else { throw Failure(description: "the device saw no request") }
        _ = try await device.authenticate(channel: pending, localAuthenticator: NoLocalAuthentication(), reason: "bench")
    }

    /// One whole sign-in; with `offline: true` it asks for `offline_access` and answers the refresh token.
    @discardableResult
    func signIn(email: String, device: TesseraClient, from address: String, offline: Bool = false) async throws -> String? {
        let started = try await start(scope: offline ? "openid email offline_access" : "openid email", from: address)
        let completeURL = try await approve(started, email: email, device: device, from: address)
        let complete = try await send(base + completeURL, from: address)
        guard complete.status == 302, let location = complete.location else {
            throw Failure(description: "complete: HTTP \(complete.status) \(complete.location ?? "")")
        }
        return try await exchange(started, location: location)["refresh_token"] as? String
    }

    /// The relying party's side once the browser is back with `location`: the state, the code exchanged, the ID
    /// token checked (signature through the JWKS, iss, aud, nonce). Answers the token endpoint's JSON.
    @discardableResult
    func exchange(_ started: Started, location: String) async throws -> [String: Any] {
        guard let callback = URLComponents(string: location), callback.queryItems?.first(where: { $0.name == "state" })?.value == started.state,
              let code = callback.queryItems?.first(where: { $0.name == "code" })?.value
        else { throw Failure(description: "the callback has no code or another state: \(location)") }
        let tokens = try await token([
            "grant_type": "authorization_code", "code": code, "redirect_uri": redirectUri, "code_verifier": started.verifier,
        ])
        guard let idToken = tokens["id_token"] as? String else { throw Failure(description: "token: no id_token") }
        let claims = try await keys.verify(idToken, as: Claims.self)
        guard claims.iss.value == issuer, claims.aud.value.contains(clientId), claims.nonce == started.nonce else {
            throw Failure(description: "the ID token's iss, aud or nonce is wrong")
        }
        return tokens
    }

    /// One refresh-token grant (RFC 6749 §6): the next refresh token of the family (rotation), its ID token checked.
    func refresh(_ refreshToken: String) async throws -> String {
        let tokens = try await token(["grant_type": "refresh_token", "refresh_token": refreshToken])
        guard let next = tokens["refresh_token"] as? String, let idToken = tokens["id_token"] as? String else {
            throw Failure(description: "refresh: no refresh_token or id_token")
        }
        let claims = try await keys.verify(idToken, as: Claims.self)
        guard claims.iss.value == issuer, claims.aud.value.contains(clientId) else { throw Failure(description: "the refreshed ID token's iss or aud is wrong") }
        return next
    }

    /// The token endpoint (or another of the client's backend, `path`; `client_secret_basic`): its JSON answer, or a
    /// failure naming its status.
    func token(_ form: [String: String], path: String = "/oauth2/token") async throws -> [String: Any] {
        var exchange = HTTPClientRequest(url: base + path)
        exchange.method = .POST
        exchange.headers.add(name: "Authorization", value: "Basic " + Data("\(clientId):\(clientSecret)".utf8).base64EncodedString())
        exchange.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        exchange.body = .bytes(ByteBuffer(string: Self.form(form)))
        let answer = try await execute(exchange)
        guard answer.status == 200, let tokens = (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) as? [String: Any] else {
            throw Failure(description: "token: HTTP \(answer.status) \(answer.body)")
        }
        return tokens
    }

    struct Answer {
        var status: Int
        var body: String
        var location: String?
    }

    func send(_ url: String, form: [String: String]? = nil, from address: String) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "X-Forwarded-For", value: address)
        if let form {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: Self.form(form)))
        }
        return try await execute(request)
    }

    func execute(_ request: HTTPClientRequest) async throws -> Answer {
        let response = try await http.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), body: String(buffer: body), location: response.headers.first(name: "Location"))
    }

    static func text(_ http: HTTPClient, _ url: String) async throws -> String {
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    /// The issuer the discovery document names.
    static func issuer(_ http: HTTPClient, _ base: String) async throws -> String {
        let document = try await text(http, base + "/.well-known/openid-configuration")
        guard let issuer = (try? JSONDecoder().decode([String: AnyDecodable].self, from: Data(document.utf8)))?["issuer"]?.text else {
            throw Failure(description: "no issuer in the discovery document")
        }
        return issuer
    }

    /// A JSON value of which only strings are kept.
    struct AnyDecodable: Decodable {
        var text: String?
        init(from decoder: any Decoder) throws { text = try? decoder.singleValueContainer().decode(String.self) }
    }

    /// The value of the first attribute that `prefix` opens (it ends with the opening quote), unescaped. A plain
    /// search of the UTF-8 bytes: a `Regex` literal here cost the load generator a fifth of its CPU (the literal parsed
    /// again at each call, then matched character by character), which it took from the server on the same two cores.
    static func attribute(_ text: String, after prefix: String) throws -> String {
        let bytes = Array(text.utf8), needle = Array(prefix.utf8)
        guard let first = needle.first, bytes.count >= needle.count else { throw Failure(description: "the page lacks \(prefix)") }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) {
                let start = index + needle.count
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")), end > start else { break }
                return String(decoding: bytes[start..<end], as: UTF8.self).replacingOccurrences(of: "&amp;", with: "&")
            }
            index += 1
        }
        throw Failure(description: "the page lacks \(prefix)")
    }

    static func form(_ fields: [String: String]) -> String {
        fields.map { "\($0.key)=\(PKCE.formEncoded($0.value))" }.joined(separator: "&")
    }
}
