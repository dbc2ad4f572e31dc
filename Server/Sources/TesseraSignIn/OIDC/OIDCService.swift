import Crypto
import Foundation
import TesseraCore

/// The OpenID Connect provider (OIDC Core 1.0, authorization-code flow with PKCE S256) and the
/// hosted sign-in page behind `/oauth2/authorize`: a pending authorization, the identifier the user
/// types, the relying-party request sent to the user's devices, and the code once they approve.
package struct OIDCService: Sendable {
    package let repository: any OIDCRepository
    /// Sessions at Tessera and the back-channel logout outbox; nil: no sessions (every sign-in asks the phone).
    package let sessions: (any OIDCSessionRepository)?
    /// Wakes the back-channel logout sender once sessions ended.
    package let logoutQueued: @Sendable () -> Void
    package let database: any Database
    package let clients: ClientService
    package let users: any UserRepository
    package let relyingParty: RelyingPartyAuthFlow
    /// The channels' event streams (the page's live progress).
    package let relay: AuthEventRelay
    package let tokens: ResultTokens
    package let hasher: SecretHasher
    package let random: RandomSource
    package let clock: WallClock
    /// How long the page waits for the device once the identifier is in (the channel lifetime).
    package let channelLifetime: Duration
    package var requestLifetime: Duration = .seconds(600)
    package var codeLifetime: Duration = .seconds(60)
    package var accessTokenLifetime: Duration = .seconds(3600)
    package var idTokenLifetime: Duration = .seconds(600)
    /// How long a sign-in's refresh tokens work (`offline_access`), from the sign-in: the family's end.
    package var refreshTokenLifetime: Duration = .seconds(30 * 86_400)
    /// How long a session at Tessera lasts from the approval that started (or last renewed) it.
    package var sessionLifetime: Duration = .seconds(12 * 3600)
    /// Identifier submissions per address and per identifier within ``rateWindow``.
    package var perIPLimit = 30
    package var perIdentifierLimit = 5
    package var rateWindow: Duration = .seconds(600)

    package init(
        repository: any OIDCRepository,
        sessions: (any OIDCSessionRepository)? = nil,
        logoutQueued: @escaping @Sendable () -> Void = {},
        database: any Database,
        clients: ClientService,
        users: any UserRepository,
        relyingParty: RelyingPartyAuthFlow,
        relay: AuthEventRelay,
        tokens: ResultTokens,
        hasher: SecretHasher,
        random: RandomSource,
        clock: WallClock,
        channelLifetime: Duration,
        requestLifetime: Duration = .seconds(600),
        codeLifetime: Duration = .seconds(60),
        accessTokenLifetime: Duration = .seconds(3600),
        idTokenLifetime: Duration = .seconds(600),
        refreshTokenLifetime: Duration = .seconds(30 * 86_400),
        perIPLimit: Int = 30,
        perIdentifierLimit: Int = 5,
        rateWindow: Duration = .seconds(600)
    ) {
        self.repository = repository
        self.sessions = sessions
        self.logoutQueued = logoutQueued
        self.database = database
        self.clients = clients
        self.users = users
        self.relyingParty = relyingParty
        self.relay = relay
        self.tokens = tokens
        self.hasher = hasher
        self.random = random
        self.clock = clock
        self.channelLifetime = channelLifetime
        self.requestLifetime = requestLifetime
        self.codeLifetime = codeLifetime
        self.accessTokenLifetime = accessTokenLifetime
        self.idTokenLifetime = idTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.perIPLimit = perIPLimit
        self.perIdentifierLimit = perIdentifierLimit
        self.rateWindow = rateWindow
    }

    package static let codeDomain = "oidc-code"
    package static let tokenDomain = "oidc-access-token"
    package static let csrfDomain = "oidc-csrf"
    package static let refreshDomain = "oidc-refresh-token"

    package var issuer: String { tokens.issuer }

    // MARK: Settings (admin)

    package func settings(clientKey: String) async throws -> OIDCClientSettings {
        let client = try await clients.client(clientKey: clientKey)
        return try await repository.settings(clientId: client.id) ?? OIDCClientSettings(redirectUris: [])
    }

    package func setSettings(_ settings: OIDCClientSettings, clientKey: String) async throws -> OIDCClientSettings {
        let client = try await clients.client(clientKey: clientKey)
        guard settings.redirectUris.count <= 20 else { throw AppError.invalidField("redirectUris", "at most 20 redirect URIs") }
        for uri in settings.redirectUris {
            guard Self.isValidRedirectURI(uri) else {
                throw AppError.invalidField("redirectUris", "a redirect URI must be an absolute http(s) URI without a fragment, at most 500 characters")
            }
        }
        guard settings.postLogoutRedirectUris.count <= 20, settings.postLogoutRedirectUris.allSatisfy(Self.isValidRedirectURI) else {
            throw AppError.invalidField(
                "postLogoutRedirectUris", "at most 20 post-logout redirect URIs, each an absolute http(s) URI without a fragment, at most 500 characters"
            )
        }
        if let uri = settings.backchannelLogoutUri, !Self.isValidRedirectURI(uri) {
            throw AppError.invalidField("backchannelLogoutUri", "the back-channel logout URI must be an absolute http(s) URI without a fragment, at most 500 characters")
        }
        guard let algorithm = SigningAlgorithm(rawValue: settings.idTokenSignedResponseAlg) else {
            throw AppError.invalidField("idTokenSignedResponseAlg", "idTokenSignedResponseAlg must be ES256 or RS256")
        }
        if let (field, detail) = ClientBranding.problem(displayName: settings.displayName, accentColor: settings.accentColor) {
            throw AppError.invalidField(field, detail)
        }
        // The RS256 key is made (and published in the JWKS) now, before the first ID token is signed with it.
        try await tokens.prepare(algorithm)
        try await repository.setSettings(settings, clientId: client.id, at: clock.now())
        var stored = settings
        stored.logoDigest = try await repository.settings(clientId: client.id)?.logoDigest
        return stored
    }

    package static func isValidRedirectURI(_ value: String) -> Bool {
        guard value.count <= 500, let url = URLComponents(string: value), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host?.isEmpty == false, url.fragment == nil
        else { return false }
        return true
    }

    // MARK: Authorization endpoint

    /// What `/oauth2/authorize` answers.
    package enum AuthorizeAnswer: Sendable {
        /// The sign-in page for a new pending authorization, with its form token and the identifier
        /// to fill in (`login_hint`, or the subject of a valid `id_token_hint`).
        case page(OIDCPendingRequest, csrf: String, branding: ClientBranding, loginHint: String? = nil)
        /// An error sent back to the client (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.6).
        case redirect(String)
        /// An error shown to the user, never redirected: the client or its redirect URI is not trusted.
        case errorPage(SignInProblem)
    }

    /// The `prompt` values of OIDC Core §3.1.2.1. Every sign-in is approved on the phone, which is
    /// both the login and the consent; `select_account` is the identifier form.
    package static let promptValues: Set<String> = ["none", "login", "consent", "select_account"]

    /// The authorization request (OIDC Core §3.1.2.1), by GET query or form POST: each parameter is
    /// used or refused as §3.1.2.6 and §6 say. `repeated` names the parameters sent more than once
    /// (RFC 6749 §3.1: an invalid request).
    /// `browser` is the browser's session cookie, if it sent one: a live session with the client signs
    /// in without the phone unless `prompt=login`, `max_age` or a hint for another user asks for it.
    package func authorize(_ query: [String: String], repeated: Set<String> = [], browser: String? = nil) async throws -> AuthorizeAnswer {
        guard !repeated.contains("client_id"), let clientKey = query["client_id"], !clientKey.isEmpty, clientKey.count <= 100,
              let client = try? await clients.client(clientKey: clientKey), client.enabled
        else { return .errorPage(.unknownApplication) }
        guard !repeated.contains("redirect_uri"), let redirectUri = query["redirect_uri"],
              let settings = try await repository.settings(clientId: client.id), settings.redirectUris.contains(redirectUri)
        else { return .errorPage(.unregisteredRedirect) }
        let state = repeated.contains("state") ? nil : query["state"]
        func fail(_ error: String, _ description: String) -> AuthorizeAnswer {
            .redirect(Self.redirect(redirectUri, ["error": error, "error_description": description, "state": state]))
        }
        if let name = repeated.sorted().first { return fail("invalid_request", "the parameter \(name.prefix(40)) was sent more than once") }
        // OIDC Core §6: request objects are not supported, by value or by reference; nor is dynamic registration.
        if query["request"] != nil { return fail("request_not_supported", "request objects are not supported; send the parameters themselves") }
        if query["request_uri"] != nil { return fail("request_uri_not_supported", "request_uri is not supported; send the parameters themselves") }
        if query["registration"] != nil { return fail("registration_not_supported", "the registration parameter is not supported") }
        guard query["response_type"] == "code" else { return fail("unsupported_response_type", "only response_type=code is supported") }
        if let mode = query["response_mode"], mode != "query" { return fail("invalid_request", "only response_mode=query is supported") }
        guard (query["scope"] ?? "").split(separator: " ").contains("openid") else { return fail("invalid_scope", "scope must contain openid") }
        guard let challenge = query["code_challenge"], !challenge.isEmpty else {
            return fail("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256")
        }
        guard query["code_challenge_method"] == "S256", (43...128).contains(challenge.count) else {
            return fail("invalid_request", "code_challenge_method must be S256 with a 43-character challenge")
        }
        guard (state ?? "").count <= 500, (query["nonce"] ?? "").count <= 500, (query["scope"] ?? "").count <= 500 else {
            return fail("invalid_request", "state, nonce and scope must be at most 500 characters")
        }
        guard (query["login_hint"] ?? "").count <= 254, (query["ui_locales"] ?? "").count <= 200, (query["acr_values"] ?? "").count <= 200,
              (query["display"] ?? "").count <= 20, (query["id_token_hint"] ?? "").utf8.count <= 8192, (query["claims"] ?? "").count <= 4000
        else { return fail("invalid_request", "login_hint, ui_locales, acr_values, display, claims or id_token_hint is too long") }
        if let claims = query["claims"], (try? JSONSerialization.jsonObject(with: Data(claims.utf8))) as? [String: Any] == nil {
            return fail("invalid_request", "claims must be a JSON object")
        }
        let prompt = Set((query["prompt"] ?? "").split(separator: " ").map(String.init))
        if let unknown = prompt.subtracting(Self.promptValues).sorted().first {
            return fail("invalid_request", "prompt \(unknown.prefix(40)) is not supported; use none, login, consent or select_account")
        }
        if prompt.contains("none") && prompt.count > 1 { return fail("invalid_request", "prompt=none cannot be combined with other values") }
        if let maxAge = query["max_age"], maxAge.isEmpty || maxAge.count > 10 || !maxAge.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return fail("invalid_request", "max_age must be a whole number of seconds")
        }
        var loginHint = query["login_hint"].flatMap { $0.isEmpty ? nil : $0 }
        var hintSubject: String?
        if let hint = query["id_token_hint"] {
            // An ID token this server issued to this client; it may have expired (OIDC Core §3.1.2.1).
            guard let claims = await tokens.verifySignature(hint, as: IDTokenHint.self), claims.aud.value.contains(client.clientKey) else {
                return fail("invalid_request", "id_token_hint is not an ID token this server issued to this client")
            }
            hintSubject = claims.sub.value
            loginHint = loginHint ?? claims.sub.value
        }
        // A session at Tessera answers without the phone (single sign-on), unless `prompt=login` or
        // `max_age` (0, or exceeded since the approval) ask for a new approval (its `auth_time` is then in
        // the ID token), or a hint names another user. `prompt=none` without such a session: login_required.
        let maxAge = query["max_age"].flatMap { Int64($0) }
        if !prompt.contains("login"), maxAge != 0, let session = try await liveSession(browser: browser, clientId: client.id),
           maxAge.map({ clock.now() / 1000 - session.authTime <= $0 }) ?? true,
           try await self.session(session, isFor: hintSubject, loginHint: query["login_hint"]) {
            return .redirect(try await signIn(
                from: session, redirectUri: redirectUri, state: state ?? "", nonce: query["nonce"] ?? "", codeChallenge: challenge,
                scope: query["scope"] ?? "openid"
            ))
        }
        if prompt.contains("none") { return fail("login_required", "the user must approve the sign-in on their phone") }
        let now = clock.now()
        let csrf = random.token(prefix: "csrf_")
        let request = OIDCPendingRequest(
            id: random.identifier(prefix: "oar_"), clientId: client.id, clientKey: client.clientKey, redirectUri: redirectUri,
            state: state ?? "", nonce: query["nonce"] ?? "", codeChallenge: challenge, scope: query["scope"] ?? "openid",
            csrfHash: hasher.hash(csrf, domain: Self.csrfDomain), createdAt: now, expiresAt: now + requestLifetime.millis,
            locale: query["ui_locales"].flatMap(SignInStrings.preferred)?.language
        )
        try await repository.insert(request)
        return .page(request, csrf: csrf, branding: ClientBranding(clientName: client.name, clientKey: client.clientKey, settings: settings), loginHint: loginHint)
    }

    /// `uri` with the parameters added to its query.
    package static func redirect(_ uri: String, _ parameters: [String: String?]) -> String {
        var components = URLComponents(string: uri) ?? URLComponents()
        var items = components.queryItems ?? []
        for key in ["code", "error", "error_description", "state"] {
            if let value = parameters[key] ?? nil { items.append(URLQueryItem(name: key, value: value)) }
        }
        components.queryItems = items.isEmpty ? nil : items
        // URLComponents leaves "+" as is in a query; a form decoder reads it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? uri
    }

    // MARK: The sign-in page

    /// The pending authorization, when `csrf` is its form token and it has not ended.
    package func pending(_ id: String, csrf: String) async throws -> OIDCPendingRequest {
        guard id.count <= 100, csrf.count <= 200, let request = try await repository.request(id),
              hasher.verify(csrf, domain: Self.csrfDomain, against: request.csrfHash), request.completedAt == nil,
              clock.now() < request.expiresAt
        else { throw AppError.oidcAuthorizationUnknown(detail: "Start again from the application") }
        return request
    }

    /// The user typed an e-mail address or user key: the devices of that user (if there is one with an
    /// active device) get a relying-party request. The answer is the same whether or not there is: with
    /// number matching on, `matchNumber` is the request's number, or a random one when there is no request.
    package func identify(
        _ id: String, csrf: String, identifier raw: String, ip: String
    ) async throws -> (OIDCPendingRequest, branding: ClientBranding, matchNumber: String?) {
        let request = try await pending(id, csrf: csrf)
        let identifier = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !identifier.isEmpty, identifier.count <= 254 else {
            throw AppError.invalidField("identifier", "enter your e-mail address or user key (at most 254 characters)")
        }
        let normalized = identifier.contains("@") ? identifier.lowercased() : identifier
        let now = clock.now()
        let window = rateWindow
        let ipKey = "oidc-ip:\(ip)", idKey = "oidc-id:\(request.clientId):\(normalized)"
        let counts = try await database.withSQL { sql in
            try await RateCounters().increment([idKey], shared: [ipKey], now: now, window: window, in: sql)
        }
        guard (counts[ipKey] ?? 0) <= perIPLimit, (counts[idKey] ?? 0) <= perIdentifierLimit else {
            throw AppError.oidcRateLimited(detail: "Wait a few minutes and try again")
        }
        let client = try await clients.client(clientKey: request.clientKey)
        let clientId = request.clientId
        let user = try await user(clientId: clientId, identifier: normalized)
        // The same reads and one write transaction of the same shape whether or not there is a user
        // with an active device: the answer's time does not tell (bench/oidc-timing.sh measures it).
        // With number matching a number is drawn either way, so the page does not tell either.
        let repository = self.repository
        let message = String("Sign in to \(client.name)".prefix(200))
        let settings = try await repository.settings(clientId: clientId)
        let numberMatch = settings?.numberMatching == true ? NumberMatch.draw(random) : nil
        let (channelId, identifiedAt) = try await relyingParty.createConcealing(
            client: client, userKey: user?.userKey, connectIp: String(ip.prefix(64)), message: message, numberMatch: numberMatch
        ) { channelId, createdAt, sql in
            guard try await repository.identify(id, channelId: channelId, at: createdAt, in: sql) else {
                throw AppError.oidcAuthorizationUnknown(detail: "This sign-in already has an identifier; start again")
            }
        }
        var updated = request
        updated.channelId = channelId
        updated.identifiedAt = identifiedAt
        return (updated, ClientBranding(clientName: client.name, clientKey: client.clientKey, settings: settings), numberMatch?.number)
    }

    /// Where the sign-in stands, as the page shows it.
    package enum Progress: String, Codable, Sendable {
        case waiting, verifying, approved, declined, expired, cancelled, failed
        /// Number matching: the phone sent no number or the wrong one (a failure of its own).
        case mismatch

        package var isFinal: Bool { self != .waiting && self != .verifying }
    }

    /// The sign-in's progress; with `wait`, held until it is final or `wait` passed (long-poll on the injected clock).
    package func progress(_ id: String, csrf: String, wait: Duration) async throws -> Progress {
        let request = try await pending(id, csrf: csrf)
        guard let identifiedAt = request.identifiedAt else { return .waiting }
        guard let channelId = request.channelId else {
            // No user: nothing happens until the request would have expired, exactly as for a user who does not answer.
            let end = identifiedAt + channelLifetime.millis
            let nap = min(end - clock.now(), wait.millis)
            if nap > 0 { try await clock.sleep(.milliseconds(nap)) }
            return clock.now() >= end ? .expired : .waiting
        }
        let client = try await clients.client(clientKey: request.clientKey)
        let state = try await relyingParty.state(client: client, id: channelId, wait: wait)
        switch state.outcome {
        case .pending: return .waiting
        case .inProgress: return .verifying
        case .completed: return .approved
        case .declined: return .declined
        case .expired: return .expired
        case .cancelled: return .cancelled
        case .failed: return state.code == ErrorCode.authNumberMismatch.rawValue ? .mismatch : .failed
        }
    }

    /// The page's progress as it happens (`GET …/events`): the current state first, then each step,
    /// ending with the final one. Without a user it stays `waiting` until the channel would have
    /// expired, on the injected clock, exactly as for a user who does not answer.
    package func events(_ id: String, csrf: String) async throws -> SignInEvents {
        let request = try await pending(id, csrf: csrf)
        guard let channelId = request.channelId else {
            // No user, or no identifier yet (then until the pending authorization ends).
            return .withoutChannel(until: request.identifiedAt.map { $0 + channelLifetime.millis } ?? request.expiresAt, clock: clock)
        }
        return .channel(try await relay.events(channelId: channelId, replay: .current), relay: relay)
    }

    package static let notApproved = AppError.authChannelState("The sign-in was not approved on the device")
}
