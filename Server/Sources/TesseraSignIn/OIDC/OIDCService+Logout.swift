import Foundation
import TesseraCore

/// RP-Initiated Logout 1.0: the end-session endpoint ends the browser's sessions at Tessera and sends
/// the browser back to a `post_logout_redirect_uri` the client registered. A request that carries an
/// ID token of the browser's session (`id_token_hint` with its `sid`) logs out at once; any other asks
/// the user first (§2: the OP SHOULD ask, so a forged link cannot log anyone out).
extension OIDCService {
    package static let logoutDomain = "oidc-logout-csrf"

    /// What the end-session endpoint answers.
    package enum LogoutAnswer: Sendable, Equatable {
        /// Logged out: on to the registered URI (with the `state`), or nil for the "signed out" page.
        /// `clearCookie`: the browser's cookie named sessions that ended.
        case loggedOut(location: String?, clearCookie: Bool)
        /// The question "Sign out?" with a form that posts the parameters back with `csrf`.
        case confirm(csrf: String, branding: ClientBranding?, parameters: [String: String])
        /// A request that cannot be honoured, shown and never redirected (§2: an unregistered URI).
        case errorPage(SignInProblem)
    }

    /// `GET/POST /oauth2/logout`: `parameters` are the request's (`id_token_hint`, `client_id`,
    /// `post_logout_redirect_uri`, `state`, `logout_hint`, `ui_locales`), plus `csrf` when the user
    /// confirmed on the page; `browser` is the browser's cookie.
    package func logout(_ parameters: [String: String], browser: String?) async throws -> LogoutAnswer {
        for name in ["id_token_hint", "client_id", "post_logout_redirect_uri", "state", "logout_hint", "ui_locales", "csrf"] {
            guard (parameters[name] ?? "").utf8.count <= (name == "id_token_hint" ? 8192 : 500) else {
                return .errorPage(.invalid("The sign-out request's \(name) is too long."))
            }
        }
        var hint: IDTokenHint?
        if let token = parameters["id_token_hint"], !token.isEmpty {
            guard let claims = await tokens.verifySignature(token, as: IDTokenHint.self) else {
                return .errorPage(.invalid("The sign-out request carries an ID token this server did not issue."))
            }
            hint = claims
        }
        // The client: client_id, or the audience of the ID token; both must agree (§2).
        var clientKey = parameters["client_id"].flatMap { $0.isEmpty ? nil : $0 }
        if let hint {
            if let named = clientKey, !hint.aud.value.contains(named) {
                return .errorPage(.invalid("The sign-out request's client_id is not the audience of its ID token."))
            }
            clientKey = clientKey ?? hint.aud.value.first
        }
        var client: Client?
        if let clientKey {
            guard let found = try? await clients.client(clientKey: clientKey) else {
                return .errorPage(.unknownApplication)
            }
            client = found
        }
        var location: String?
        if let uri = parameters["post_logout_redirect_uri"], !uri.isEmpty {
            guard let client, let settings = try await repository.settings(clientId: client.id), settings.postLogoutRedirectUris.contains(uri) else {
                return .errorPage(.unregisteredLogoutRedirect)
            }
            location = Self.redirect(uri, ["state": parameters["state"].flatMap { $0.isEmpty ? nil : $0 }])
        }
        let now = clock.now()
        var browserSessions: [OIDCSession] = []
        if let sessions, let hash = browserHash(browser) { browserSessions = try await sessions.live(browserHash: hash, at: now) }
        // The session the ID token was issued in, if it is live and is that client's and user's.
        var named: OIDCSession?
        if let sid = hint?.sid, let hint, let found = try await sessions?.session(id: sid), found.endedAt == nil, found.expiresAt > now,
           found.userKey == hint.sub.value, hint.aud.value.contains(found.clientKey) {
            named = found
        }
        let confirmed = parameters["csrf"].map { csrf in browser.map { hasher.verify($0, domain: Self.logoutDomain, against: csrf) } ?? false } ?? false
        let hintedBrowser = named.map { named in browserSessions.contains { $0.id == named.id } } ?? false
        if !browserSessions.isEmpty, !confirmed, !hintedBrowser {
            guard let browser else { return .errorPage(.needsCookies) }
            var kept = parameters.filter { ["client_id", "post_logout_redirect_uri", "state", "ui_locales"].contains($0.key) }
            if let clientKey { kept["client_id"] = clientKey }
            var branding: ClientBranding?
            if let client { branding = try await self.branding(of: client) }
            return .confirm(csrf: hasher.hash(browser, domain: Self.logoutDomain), branding: branding, parameters: kept)
        }
        try await endSessions(browserSessions.map(\.id) + (named.map { [$0.id] } ?? []))
        return .loggedOut(location: location, clearCookie: !browserSessions.isEmpty)
    }
}
