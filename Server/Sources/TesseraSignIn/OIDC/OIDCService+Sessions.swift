import Foundation
import TesseraCore

/// Sessions at Tessera: a browser that approved a sign-in on the phone holds a random token in an
/// HttpOnly cookie, and its session with that client (users belong to one client) lets the next
/// sign-in of the client, `prompt=none` included, finish without the phone until the session ends
/// (logout, expiry, another user signing in to the same client in that browser). Only the token's
/// keyed hash is stored; a sign-in always sets a fresh token (no session fixation).
extension OIDCService {
    /// The cookie that holds the browser's token.
    package static let browserCookie = "tessera_browser"
    package static let browserDomain = "oidc-browser"

    /// The browser's token as stored (keyed hash); nil for a missing or implausible cookie.
    package func browserHash(_ browser: String?) -> String? {
        guard let browser, !browser.isEmpty, browser.count <= 200 else { return nil }
        return hasher.hash(browser, domain: Self.browserDomain)
    }

    /// The browser's live session with the client, when its cookie names one.
    package func liveSession(browser: String?, clientId: String) async throws -> OIDCSession? {
        guard let sessions, let hash = browserHash(browser) else { return nil }
        return try await sessions.live(browserHash: hash, clientId: clientId, at: clock.now())
    }

    /// Whether the session can sign in for this request: its user still exists and is the one the
    /// request's hints name, if they name one (the subject of `id_token_hint`, and `login_hint` as a user
    /// key or e-mail address).
    func session(_ session: OIDCSession, isFor hintSubject: String?, loginHint: String?) async throws -> Bool {
        if let hintSubject, hintSubject != session.userKey { return false }
        let users = self.users
        guard let user = try await database.read({ sql in try await users.find(clientId: session.clientId, userKey: session.userKey, in: sql) }) else {
            return false
        }
        guard let loginHint, !loginHint.isEmpty, loginHint != session.userKey else { return true }
        return loginHint.contains("@") && user.email.lowercased() == loginHint.lowercased()
    }

    /// Single sign-on: a code for the session's user, issued without the phone (OIDC Core §3.1.2.3: the
    /// user is authenticated already), with the session's `auth_time` and methods. Returns the redirect.
    func signIn(
        from session: OIDCSession, redirectUri: String, state: String, nonce: String, codeChallenge: String, scope: String
    ) async throws -> String {
        let now = clock.now()
        let code = random.token(prefix: "oc_")
        // A request of its own, completed at once, so the code is bound to it as every code is.
        let request = OIDCPendingRequest(
            id: random.identifier(prefix: "oar_"), clientId: session.clientId, clientKey: session.clientKey, redirectUri: redirectUri,
            state: state, nonce: nonce, codeChallenge: codeChallenge, scope: scope,
            csrfHash: hasher.hash(random.token(prefix: "csrf_"), domain: Self.csrfDomain), createdAt: now, expiresAt: now + requestLifetime.millis
        )
        try await repository.insert(request)
        let record = OIDCCode(
            codeHash: hasher.hash(code, domain: Self.codeDomain), requestId: request.id, clientId: session.clientId, redirectUri: redirectUri,
            codeChallenge: codeChallenge, nonce: nonce, scope: scope, userKey: session.userKey, authTime: session.authTime, amr: session.amr,
            expiresAt: now + codeLifetime.millis, sessionId: session.id
        )
        guard try await repository.complete(request.id, code: record, at: now) else {
            throw AppError.oidcAuthorizationUnknown(detail: "This sign-in has already finished")
        }
        return Self.redirect(redirectUri, ["code": code, "state": state.isEmpty ? nil : state])
    }

    /// After an approval: the browser's session with the client (kept with the new `auth_time` for the
    /// same user, else a new one), under a fresh cookie value that the browser's other sessions move
    /// to. Nil without session storage.
    func startSession(
        clientId: String, clientKey: String, userKey: String, authTime: Int64, amr: [String], presented: String?
    ) async throws -> (sid: String, browser: String)? {
        guard let sessions else { return nil }
        let now = clock.now()
        let browser = random.token(prefix: "tb_")
        let session = OIDCSession(
            id: random.identifier(prefix: "sid_"), browserHash: hasher.hash(browser, domain: Self.browserDomain), clientId: clientId,
            clientKey: clientKey, userKey: userKey, authTime: authTime, amr: amr, createdAt: now, expiresAt: now + sessionLifetime.millis
        )
        let sid = try await sessions.signIn(session, previousHash: browserHash(presented), at: now)
        // Another user's session with this client may have ended: its client hears of it.
        logoutQueued()
        return (sid, browser)
    }

    /// Ends sessions (their tokens are revoked, their clients' back-channel logouts queued).
    @discardableResult
    package func endSessions(_ ids: [String]) async throws -> [OIDCSession] {
        guard let sessions, !ids.isEmpty else { return [] }
        let ended = try await sessions.end(ids: ids, at: clock.now())
        if !ended.isEmpty { logoutQueued() }
        return ended
    }
}
