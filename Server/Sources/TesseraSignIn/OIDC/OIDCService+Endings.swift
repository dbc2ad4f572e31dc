import Foundation
import TesseraCore

/// How a sign-in of the hosted page ends: with a code once the phone approved, or with the OAuth error
/// the client's redirect URI receives otherwise (OIDC Core §3.1.2.6); and the page's own ways out,
/// Cancel and "Not you?".
extension OIDCService {
    /// After approval: the code, bound to the request, and the client's redirect URI with it. After
    /// an ending without approval, the redirect URI with the OAuth error (OIDC Core §3.1.2.6):
    /// `access_denied` when the user declined, cancelled or failed on the phone, `login_required` when
    /// the sign-in expired. Throws ``notApproved`` while the sign-in is still under way.
    ///
    /// An approval starts a session at Tessera for the browser (`browser` is the cookie it came with, if
    /// any): the completion's `browser` is the new cookie value to set.
    package func complete(_ id: String, csrf: String, browser: String? = nil) async throws -> Completion {
        let request = try await pending(id, csrf: csrf)
        if let approval = try await approval(of: request) {
            return try await issueCode(for: request, resultToken: approval.token, browser: browser)
        }
        let progress = try await progress(id, csrf: csrf, wait: .zero)
        guard let ending = Self.ending(of: progress) else { throw Self.notApproved }
        return Completion(location: try await end(request, error: ending.error, description: ending.description))
    }

    /// The client and the approval's result token of a request whose phone approved; nil while under way, after
    /// another ending, or before it was sent to a phone.
    func approval(of request: OIDCPendingRequest) async throws -> (client: Client, token: String)? {
        guard let channelId = request.channelId else { return nil }
        let client = try await clients.client(clientKey: request.clientKey)
        let state = try await relyingParty.state(client: client, id: channelId, wait: .zero)
        guard state.outcome == .completed, let token = state.token else { return nil }
        return (client, token)
    }

    /// Where a completed sign-in sends the browser, and the session cookie to set (after an approval).
    package struct Completion: Sendable, Equatable {
        package var location: String
        package var browser: String?
    }

    /// The OAuth error a sign-in that ended without approval sends back; nil while it is under way or once approved.
    package static func ending(of progress: Progress) -> (error: String, description: String)? {
        switch progress {
        case .waiting, .verifying, .approved: nil
        case .declined: ("access_denied", "the user declined the sign-in on their phone")
        case .cancelled: ("access_denied", "the sign-in was cancelled")
        case .failed: ("access_denied", "the sign-in failed on the phone")
        case .mismatch: ("access_denied", "the number chosen on the phone did not match")
        case .expired: ("login_required", "the sign-in expired before it was approved on the phone")
        }
    }

    private func issueCode(for request: OIDCPendingRequest, resultToken token: String, browser: String?) async throws -> Completion {
        let claims = try await tokens.verify(token)
        return try await issueCode(
            for: request, userKey: claims.sub.value, authTime: Int64(claims.iat.value.timeIntervalSince1970), amr: claims.amr, browser: browser
        )
    }

    /// The code for `userKey`, who signed in at `authTime` (seconds) by `amr`, and a session at Tessera for the browser.
    func issueCode(for request: OIDCPendingRequest, userKey: String, authTime: Int64, amr: [String], browser: String?) async throws -> Completion {
        let code = random.token(prefix: "oc_")
        let now = clock.now()
        let session = try await startSession(
            clientId: request.clientId, clientKey: request.clientKey, userKey: userKey, authTime: authTime, amr: amr, presented: browser
        )
        let record = OIDCCode(
            codeHash: hasher.hash(code, domain: Self.codeDomain), requestId: request.id, clientId: request.clientId,
            redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, nonce: request.nonce, scope: request.scope,
            userKey: userKey, authTime: authTime, amr: amr, expiresAt: now + codeLifetime.millis, sessionId: session?.sid
        )
        guard try await repository.complete(request.id, code: record, at: now) else {
            throw AppError.oidcAuthorizationUnknown(detail: "This sign-in has already finished")
        }
        return Completion(
            location: Self.redirect(request.redirectUri, ["code": code, "state": request.state.isEmpty ? nil : request.state]), browser: session?.browser
        )
    }

    /// Ends the request without a code and sends the error back to the client.
    private func end(_ request: OIDCPendingRequest, error: String, description: String) async throws -> String {
        guard try await repository.end(request.id, at: clock.now()) else {
            throw AppError.oidcAuthorizationUnknown(detail: "This sign-in has already finished")
        }
        return Self.redirect(request.redirectUri, ["error": error, "error_description": description, "state": request.state.isEmpty ? nil : request.state])
    }

    /// Ends the sign-in's request to the phone, if there is one still open.
    private func cancelChannel(of request: OIDCPendingRequest) async throws {
        guard let channelId = request.channelId else { return }
        let client = try await clients.client(clientKey: request.clientKey)
        guard try await relyingParty.state(client: client, id: channelId, wait: .zero).outcome.isFinal == false else { return }
        do {
            try await relyingParty.cancel(client: client, id: channelId)
        } catch is AppError {
            // It ended meanwhile (approved, declined or expired): there is nothing left to cancel.
        }
    }

    /// The user cancelled on the page: the phone's request ends, and the client hears `access_denied`.
    package func cancel(_ id: String, csrf: String) async throws -> String {
        let request = try await pending(id, csrf: csrf)
        try await cancelChannel(of: request)
        return try await end(request, error: "access_denied", description: "the user cancelled the sign-in")
    }

    /// "Not you?": the request (and the phone's request, if any) ends, and a new one with the same
    /// parameters starts at the identifier form.
    package func restart(_ id: String, csrf: String) async throws -> AuthorizeAnswer {
        let request = try await pending(id, csrf: csrf)
        try await cancelChannel(of: request)
        let now = clock.now()
        guard try await repository.end(request.id, at: now) else {
            throw AppError.oidcAuthorizationUnknown(detail: "This sign-in has already finished")
        }
        let client = try await clients.client(clientKey: request.clientKey)
        let csrf = random.token(prefix: "csrf_")
        let fresh = OIDCPendingRequest(
            id: random.identifier(prefix: "oar_"), clientId: request.clientId, clientKey: request.clientKey, redirectUri: request.redirectUri,
            state: request.state, nonce: request.nonce, codeChallenge: request.codeChallenge, scope: request.scope,
            csrfHash: hasher.hash(csrf, domain: Self.csrfDomain), createdAt: now, expiresAt: now + requestLifetime.millis, locale: request.locale
        )
        try await repository.insert(fresh)
        return .page(fresh, csrf: csrf, branding: try await branding(of: client))
    }
}
