import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore

/// The OpenID Connect endpoints, the hosted sign-in page, and the admin routes of a client's OIDC settings.
package struct OIDCController<Context: TesseraContext> {
    package let service: OIDCService
    /// Passkey sign-in on the page (OIDCController+Passkeys.swift).
    package let passkeys: PasskeyService
    package let random: RandomSource
    package let bodyLimit: Int
    /// CIBA in poll mode (OIDCController+CIBA.swift).
    package let ciba: CIBAService

    package init(service: OIDCService, passkeys: PasskeyService, random: RandomSource, bodyLimit: Int, ciba: CIBAService? = nil) {
        self.service = service
        self.ciba = ciba ?? CIBAService(oidc: service)
        self.passkeys = passkeys
        self.random = random
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to router: Router<Context>) {
        router.get(".well-known/openid-configuration", use: discovery)
        router.get("oauth2/authorize", use: authorize)
        router.post("oauth2/authorize", use: authorizeByPost)
        router.post("oauth2/authorize/{requestId}/identify", use: identify)
        router.post("oauth2/authorize/{requestId}/cancel", use: cancel)
        router.post("oauth2/authorize/{requestId}/restart", use: restart)
        router.get("oauth2/authorize/{requestId}/status", use: status)
        router.get("oauth2/authorize/{requestId}/events", use: events)
        router.get("oauth2/authorize/{requestId}/complete", use: complete)
        router.post("oauth2/authorize/{requestId}/passkey/options", use: passkeyOptions)
        router.post("oauth2/authorize/{requestId}/passkey", use: passkeySignIn)
        router.post("oauth2/authorize/{requestId}/passkey/registration/options", use: passkeyRegistrationOptions)
        router.post("oauth2/authorize/{requestId}/passkey/registration", use: passkeyRegistration)
        router.post("oauth2/token", use: token)
        router.post("oauth2/bc-authorize", use: backchannelAuthorize)
        router.post("oauth2/revoke", use: revoke)
        router.post("oauth2/introspect", use: introspect)
        router.get("oauth2/userinfo", use: userInfo)
        router.post("oauth2/userinfo", use: userInfo)
        router.get("oauth2/logout", use: logout)
        router.post("oauth2/logout", use: logoutByPost)
        addLogoRoutes(to: router)
    }

    /// `GET/PUT /v1/admin/clients/{clientKey}/oidc` (admin token).
    package func addAdminRoutes(to admin: RouterGroup<Context>) {
        admin.get("clients/{clientKey}/oidc") { _, context in
            try Response.json(try await service.settings(clientKey: try context.parameters.require("clientKey")))
        }
        admin.put("clients/{clientKey}/oidc") { request, context in
            var request = request
            let settings = try await request.decodeJSON(OIDCClientSettings.self, limit: bodyLimit)
            return try Response.json(try await service.setSettings(settings, clientKey: try context.parameters.require("clientKey")))
        }
        addLogoAdminRoutes(to: admin)
        addCIBAAdminRoutes(to: admin)
        addClientKeyRoutes(to: admin)
    }

    // MARK: Discovery

    @Sendable package func discovery(_ request: Request, context: Context) async throws -> Response {
        try .json(OIDCProviderMetadata(issuer: service.issuer))
    }

    /// The query's parameters, decoded as a form (`+` is a space, as OAuth clients send it); the first of each name.
    package static func query(_ request: Request) -> [String: String] {
        RelyingPartyController<Context>.form(request.uri.query ?? "")
    }

    // MARK: The page

    /// `leadsTo`: where the page's forms may end up after the server's redirect (the client's redirect or
    /// post-logout URI), allowed by the page's CSP `form-action`, which browsers also apply to redirects.
    func page(_ content: SignInPage.Content, _ strings: SignInStrings, status: HTTPResponse.Status = .ok, leadsTo: String? = nil) -> Response {
        SignInPage(content: content, strings: strings, nonce: random.token(byteCount: 16), formTarget: leadsTo).response(status: status)
    }

    /// The page's language: the pending authorization's (`ui_locales`), else the request's `ui_locales`,
    /// else the browser's `Accept-Language`, else English.
    static func strings(_ request: Request, locale: String? = nil, uiLocales: String? = nil) -> SignInStrings {
        locale.flatMap(SignInStrings.catalogue) ?? SignInStrings.negotiate(uiLocales: uiLocales, acceptLanguage: request.headers[.acceptLanguage])
    }

    /// The page that says why the sign-in cannot go on.
    private func errorPage(_ error: AppError, _ request: Request) -> Response {
        let strings = Self.strings(request)
        return page(.message(title: strings.cannotSignIn, text: SignInProblem.text(of: error, strings), status: "error"), strings, status: error.status)
    }

    /// `GET /oauth2/authorize` (OIDC Core §3.1.2.1).
    @Sendable package func authorize(_ request: Request, context: Context) async throws -> Response {
        let (query, repeated) = RelyingPartyController<Context>.formNotingRepeats(request.uri.query ?? "")
        return try await answer(service.authorize(query, repeated: repeated, browser: Self.browser(request)), Self.strings(request, uiLocales: query["ui_locales"]))
    }

    /// `POST /oauth2/authorize` with the parameters as a form body (OIDC Core §3.1.2.1: GET and POST).
    @Sendable package func authorizeByPost(_ request: Request, context: Context) async throws -> Response {
        var request = request
        guard Self.isForm(request) else { return notAForm(request, title: \.cannotSignIn) }
        let (form, repeated) = RelyingPartyController<Context>.formNotingRepeats(buffer: try await request.collectBody(limit: bodyLimit))
        return try await answer(service.authorize(form, repeated: repeated, browser: Self.browser(request)), Self.strings(request, uiLocales: form["ui_locales"]))
    }

    static func isForm(_ request: Request) -> Bool {
        request.headers.value(.contentType)?.hasPrefix(ignoringASCIICase: "application/x-www-form-urlencoded") == true
    }

    /// 415 for a page POST that is not a form (`title`: sign-in or sign-out).
    func notAForm(_ request: Request, title: KeyPath<SignInStrings, String>) -> Response {
        let strings = Self.strings(request)
        return page(.message(title: strings[keyPath: title], text: strings.sendAsForm, status: "error"), strings, status: .unsupportedMediaType)
    }

    private func answer(_ answer: OIDCService.AuthorizeAnswer, _ strings: SignInStrings) -> Response {
        switch answer {
        case .page(let pending, let csrf, let branding, let loginHint):
            let strings = pending.locale.flatMap(SignInStrings.catalogue) ?? strings
            return page(
                .identify(requestId: pending.id, csrf: csrf, branding: branding, loginHint: loginHint, passkeys: passkeys.settings.isAvailable),
                strings, leadsTo: pending.redirectUri
            )
        case .redirect(let location):
            return Self.redirect(location)
        case .errorPage(let problem):
            return page(.message(title: strings.cannotSignIn, text: problem.text(strings), status: "error"), strings, status: .badRequest)
        }
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// The form fields of a page's own POST (`csrf`, …); 415 unless it is a form.
    func pageForm(_ request: Request) async throws -> [String: String] {
        var request = request
        guard Self.isForm(request) else { throw AppError.unsupportedMediaType(detail: "Send application/x-www-form-urlencoded") }
        return RelyingPartyController<Context>.form(buffer: try await request.collectBody(limit: bodyLimit))
    }

    /// `POST …/cancel`: the user gave up on the page; the client hears `access_denied`.
    @Sendable package func cancel(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        do {
            return Self.redirect(try await service.cancel(id, csrf: form["csrf"] ?? ""))
        } catch let error as AppError {
            return errorPage(error, request)
        }
    }

    /// `POST …/restart` ("Not you?"): the identifier form again, for a new request with the same parameters.
    @Sendable package func restart(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        do {
            return answer(try await service.restart(id, csrf: form["csrf"] ?? ""), Self.strings(request))
        } catch let error as AppError {
            return errorPage(error, request)
        }
    }

    @Sendable package func identify(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        do {
            let (pending, branding, matchNumber) = try await service.identify(
                id, csrf: form["csrf"] ?? "", identifier: form["identifier"] ?? "", ip: context.remoteAddress ?? "unknown"
            )
            return page(
                .waiting(requestId: pending.id, csrf: form["csrf"] ?? "", branding: branding, matchNumber: matchNumber),
                Self.strings(request, locale: pending.locale), leadsTo: pending.redirectUri
            )
        } catch let error as AppError {
            return errorPage(error, request)
        }
    }

    /// The page's progress as JSON: `{"status": "waiting" | "verifying" | "approved" | "declined" | "expired" | "cancelled" | "failed" | "mismatch"}`.
    @Sendable package func status(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        var wait = 25
        let query = Self.query(request)
        if let text = query["wait"] {
            guard let value = Int(text), (0...30).contains(value) else { throw AppError.invalidField("wait", "wait must be 0–30 seconds") }
            wait = value
        }
        let progress = try await service.progress(id, csrf: query["csrf"] ?? "", wait: .seconds(wait))
        var response = try Response.json(["status": progress.rawValue])
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The page's progress as server-sent events: `event: status` for each step (`{"status":"waiting"}`,
    /// `{"status":"verifying","step":"SelectNodes"}`, …), then one `event: outcome`, then the end.
    @Sendable package func events(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let events = try await service.events(id, csrf: Self.query(request)["csrf"] ?? "")
        return ServerSentEvents.response(comment: "tessera sign-in progress", events, name: { $0.name }, alongside: events.deadline)
    }

    /// `GET …/complete`: to the client's redirect URI with the code once approved, or with the OAuth
    /// error once the sign-in ended otherwise (OIDC Core §3.1.2.6); while it is under way, a page that says so.
    /// Once approved, for a client that offers passkeys, first the page with the offer (unless `passkey=offered`).
    @Sendable package func complete(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let query = Self.query(request), csrf = query["csrf"] ?? ""
        do {
            if query["passkey"] != "offered", passkeys.settings.isAvailable, let offer = try await service.passkeyOffer(id, csrf: csrf) {
                return page(.passkeyOffer(requestId: id, csrf: csrf, branding: offer.branding), Self.strings(request, locale: offer.locale))
            }
            let completion = try await service.complete(id, csrf: csrf, browser: Self.browser(request))
            var response = Self.redirect(completion.location)
            if let browser = completion.browser { response.setCookie(browserCookie(browser)) }
            return response
        } catch let error as AppError where error.code == OIDCService.notApproved.code {
            let progress = (try? await service.progress(id, csrf: csrf, wait: .zero)) ?? .waiting
            let strings = Self.strings(request)
            return page(.message(title: strings.notSignedInYet, text: strings.notApprovedYet, status: progress.rawValue), strings, status: .conflict)
        } catch let error as AppError {
            return errorPage(error, request)
        }
    }

    // MARK: Token and UserInfo

    static func oauthError(_ error: OIDCService.OAuthError, basic: Bool = false) -> Response {
        var response = (try? Response.json(["error": error.error, "error_description": error.description], status: .init(code: error.status)))
            ?? Response(status: .init(code: error.status))
        response.headers[.cacheControl] = "no-store"
        if error.status == 401 {
            response.headers[.wwwAuthenticate] = basic ? "Basic realm=\"tessera\"" : "Bearer error=\"\(error.error)\""
        }
        return response
    }

    /// An OAuth JSON answer that no cache keeps (RFC 6749 §5.1).
    static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        if let pragma = HTTPField.Name("Pragma") { response.headers[pragma] = "no-cache" }
        return response
    }

    /// `POST /oauth2/token` (RFC 6749 §4.1.3, §6): the code or a refresh token, `client_secret_basic` or
    /// `client_secret_post`; errors as §5.2 says.
    @Sendable package func token(_ request: Request, context: Context) async throws -> Response {
        let client: Client, form: [String: String]
        switch try await authenticatedForm(request) {
        case .success(let pair): (client, form) = pair
        case .failure(let error): return Self.oauthError(error, basic: true)
        }
        do {
            if form["grant_type"] == CIBAService.grantType { return Self.noStore(try Response.json(try await ciba.token(client: client, form: form))) }
            return Self.noStore(try Response.json(try await service.exchange(client: client, form: form)))
        } catch let error as OIDCService.OAuthError {
            return Self.oauthError(error)
        }
    }

    /// `POST /oauth2/revoke` (RFC 7009): 200 whether or not the token was known (§2.2).
    @Sendable package func revoke(_ request: Request, context: Context) async throws -> Response {
        let client: Client, form: [String: String]
        switch try await authenticatedForm(request) {
        case .success(let pair): (client, form) = pair
        case .failure(let error): return Self.oauthError(error, basic: true)
        }
        guard let token = form["token"] else { return Self.oauthError(.init(error: "invalid_request", description: "token is required")) }
        try await service.revoke(client: client, token: token, hint: form["token_type_hint"])
        return Self.noStore(Response(status: .ok))
    }

    /// `POST /oauth2/introspect` (RFC 7662 §2): the client's own access and refresh tokens.
    @Sendable package func introspect(_ request: Request, context: Context) async throws -> Response {
        let client: Client, form: [String: String]
        switch try await authenticatedForm(request) {
        case .success(let pair): (client, form) = pair
        case .failure(let error): return Self.oauthError(error, basic: true)
        }
        guard let token = form["token"] else { return Self.oauthError(.init(error: "invalid_request", description: "token is required")) }
        return Self.noStore(try Response.json(try await service.introspect(client: client, token: token)))
    }

    /// `GET/POST /oauth2/userinfo` (OIDC Core §5.3) with the access token in `Authorization: Bearer`
    /// or, by POST, as `access_token` in a form body (RFC 6750 §2.1, §2.2); never both (§2).
    @Sendable package func userInfo(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let header = request.headers[.authorization]
        var bodyToken: String?
        if request.method == .post, Self.isForm(request) {
            bodyToken = RelyingPartyController<Context>.form(buffer: try await request.collectBody(limit: bodyLimit))["access_token"]
        }
        let token: String
        switch (header, bodyToken) {
        case (let header?, nil) where header.hasPrefix(ignoringASCIICase: "bearer "):
            token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        case (nil, let body?):
            token = body
        case (_?, _?):
            return Self.oauthError(.init(error: "invalid_request", description: "send the access token in one place only"))
        default:
            var response = Response(status: .unauthorized)
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        do {
            var response = try Response.json(try await service.userInfo(accessToken: token))
            response.headers[.cacheControl] = "no-store"
            return response
        } catch let error as OIDCService.OAuthError {
            return Self.oauthError(error)
        }
    }
}
