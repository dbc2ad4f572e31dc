import Foundation
import TesseraCore

/// OpenID Client-Initiated Backchannel Authentication (CIBA Core 1.0) in poll mode: a client's backend asks for a
/// user's authentication at the backchannel authentication endpoint; the request becomes a relying-party request
/// to the user's phone (push or polling, node quorum, number matching with the binding message shown); the
/// backend polls the token endpoint with `grant_type=urn:openid:params:grant-type:ciba` until the phone answers.
package struct CIBAService: Sendable {
    package let oidc: OIDCService
    package let repository: any CIBARepository
    /// The interval a client is given to poll at (CIBA §7.3 `interval`); `slow_down` raises it by 5 seconds.
    package var interval: Duration = .seconds(5)
    /// The clients' delivery settings (poll or ping).
    package var clients: any CIBAClientRepository = SQLCIBAClientRepository()
    /// Ping mode: the outbox and the sealer of what a ping carries (nil: ping clients cannot make requests).
    package var pings: (any CIBAPingRepository)?
    package var pingSealer: SealedResultToken?
    /// `user_code` (CIBA §7.1): checks a user's code, their Tessera password, with the password log-in's limits
    /// (the user's e-mail address or phone number, the code); throws its errors (nil: clients cannot require codes).
    package var userCode: (@Sendable (_ client: Client, _ identifier: String, _ code: String) async throws -> Void)?

    package static let grantType = "urn:openid:params:grant-type:ciba"
    static let idDomain = "ciba-auth-req-id"
    /// CIBA §7.1: a binding message "SHOULD be relatively short"; at most this many characters.
    static let bindingMessageLimit = 64

    package init(oidc: OIDCService, repository: any CIBARepository = SQLCIBARepository()) {
        self.oidc = oidc
        self.repository = repository
    }

    /// The successful answer of the backchannel authentication endpoint (CIBA §7.3).
    package struct Started: Codable, Sendable, Equatable {
        package var authReqId: String
        package var expiresIn: Int
        package var interval: Int

        enum CodingKeys: String, CodingKey {
            case authReqId = "auth_req_id", expiresIn = "expires_in", interval
        }
    }

    /// CIBA §7.1–§7.3: checks the request, asks the user's phone, and answers the `auth_req_id`. A hint that names
    /// no user (or one without an active device) gets the same answer, and the request only ever expires.
    package func authenticate(client: Client, form: [String: String]) async throws -> Started {
        let scope = form["scope"] ?? ""
        guard scope.utf8.count <= 500, scope.split(separator: " ").contains("openid") else {
            throw OIDCService.OAuthError(error: "invalid_scope", description: "scope must contain openid")
        }
        let hints = ["login_hint", "login_hint_token", "id_token_hint"].filter { form[$0] != nil }
        guard hints.count == 1 else {
            throw OIDCService.OAuthError(error: "invalid_request", description: "send exactly one of login_hint, login_hint_token and id_token_hint")
        }
        let message = try Self.bindingMessage(form["binding_message"])
        let lifetime = try Self.expiry(form["requested_expiry"], limit: oidc.channelLifetime)
        let clients = self.clients
        let settings = try await oidc.database.read { sql in try await clients.settings(clientId: client.id, in: sql) }
        let notificationToken = try Self.notificationToken(form["client_notification_token"], mode: settings.deliveryMode)
        let userKey = try await user(client: client, form: form)
        if settings.userCodeRequired { try await checkUserCode(form["user_code"], userKey: userKey, client: client) }
        let id = oidc.random.token(prefix: "car_"), idHash = oidc.hasher.hash(id, domain: Self.idDomain)
        let ping = try notificationToken.map { token -> (any CIBAPingRepository, String) in
            guard let pings, let pingSealer else { throw OIDCService.OAuthError(error: "invalid_request", description: "\(settings.deliveryMode) mode is not available") }
            let payload = String(decoding: try JSONEncoder().encode(CIBAPings.Sealed(authReqId: id, token: token)), as: UTF8.self)
            return (pings, try pingSealer.seal(payload, channelId: idHash))
        }
        let repository = self.repository, interval = self.interval, kind = settings.deliveryMode
        _ = try await oidc.relyingParty.createConcealing(
            client: client, userKey: userKey, connectIp: "backchannel", message: message ?? "Sign in to \(client.name)"
        ) { channelId, createdAt, sql in
            try await repository.insert(
                CIBARequestRecord(
                    idHash: idHash, clientId: client.id, channelId: channelId, scope: Self.grantedScope(scope), createdAt: createdAt,
                    expiresAt: createdAt + lifetime.millis, intervalMillis: interval.millis
                ),
                in: sql
            )
            if let (pings, sealed) = ping {
                try await pings.enqueue(
                    id: idHash, kind: kind, clientId: client.id, channelId: channelId, sealed: sealed, now: createdAt, dueAt: createdAt + lifetime.millis, in: sql
                )
            }
        }
        return Started(authReqId: id, expiresIn: Int(lifetime.components.seconds), interval: Int(interval.components.seconds))
    }

    /// CIBA §10.1–§11: the token request of a poll-mode client.
    package func token(client: Client, form: [String: String]) async throws -> OIDCService.TokenResponse {
        guard let id = form["auth_req_id"], !id.isEmpty, id.utf8.count <= 200 else {
            throw OIDCService.OAuthError(error: "invalid_request", description: "auth_req_id is required")
        }
        let idHash = oidc.hasher.hash(id, domain: Self.idDomain), repository = self.repository, now = oidc.clock.now(), clients = self.clients
        let mode = try await oidc.database.read { sql in try await clients.settings(clientId: client.id, in: sql) }.deliveryMode
        guard mode != "push" else {
            throw OIDCService.OAuthError(error: "unauthorized_client", description: "the client is in push mode: its tokens are delivered to its notification endpoint")
        }
        guard let record = try await oidc.database.read({ sql in try await repository.find(idHash: idHash, clientId: client.id, in: sql) }) else {
            throw OIDCService.OAuthError(error: "invalid_grant", description: "the auth_req_id is unknown or another client's")
        }
        if record.usedAt == nil, now < record.expiresAt {
            let raise = interval.millis
            guard try await oidc.database.transaction({ sql in try await repository.poll(idHash: idHash, now: now, raise: raise, in: sql) }) else {
                throw OIDCService.OAuthError(error: "slow_down", description: "polled faster than the interval; it is now 5 seconds longer")
            }
        }
        let request = try await record.channelId.asyncMap { try await oidc.relyingParty.state(client: client, id: $0, wait: .zero) }
        let state = CIBAState.of(record, request: request, now: now)
        guard case .approved(let resultToken) = state else { throw state.error ?? CIBAState.pending.error! }
        guard try await oidc.database.transaction({ sql in try await repository.markUsed(idHash: idHash, now: now, in: sql) }) else {
            throw CIBAState.used.error!
        }
        do {
            let claims = try await oidc.tokens.verify(resultToken)
            return try await oidc.issueTokens(
                client: client, userKey: claims.sub.value, scope: record.scope, authTime: Int64(claims.iat.value.timeIntervalSince1970), amr: claims.amr,
                nonce: nil, family: idHash, sessionId: nil, nodes: claims.nodes, at: now
            )
        } catch {
            // No tokens came of the mark: take it back, so that the client's next poll may get them.
            try? await oidc.database.transaction { sql in try await repository.unmarkUsed(idHash: idHash, in: sql) }
            throw error
        }
    }

    /// The user the hint names (nil when none): `login_hint` a user key or an e-mail address, `id_token_hint` an ID
    /// token this server issued to this client, `login_hint_token` a JWT the client signed (``loginHintTokenUser(_:client:)``).
    func user(client: Client, form: [String: String]) async throws -> String? {
        if let token = form["login_hint_token"] { return try await loginHintTokenUser(token, client: client) }
        if let hint = form["id_token_hint"] {
            guard hint.utf8.count <= 8192, let claims = await oidc.tokens.verifySignature(hint, as: IDTokenHint.self),
                  claims.aud.value.contains(client.clientKey)
            else { throw OIDCService.OAuthError(error: "invalid_request", description: "id_token_hint is not an ID token this server issued to this client") }
            return claims.sub.value
        }
        let hint = (form["login_hint"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !hint.isEmpty, hint.utf8.count <= 254, !hint.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw OIDCService.OAuthError(error: "invalid_request", description: "login_hint must be a user key or an e-mail address")
        }
        return try await oidc.user(clientId: client.id, identifier: hint)?.userKey
    }

    /// CIBA §7.1 `binding_message`: at most 64 characters, no control characters; `invalid_binding_message` otherwise.
    static func bindingMessage(_ given: String?) throws -> String? {
        guard let given else { return nil }
        let trimmed = given.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= bindingMessageLimit,
              !trimmed.unicodeScalars.contains(where: { [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) })
        else {
            throw OIDCService.OAuthError(
                error: "invalid_binding_message", description: "binding_message must be 1 to \(bindingMessageLimit) characters without control characters"
            )
        }
        return trimmed
    }

    /// CIBA §7.1 `client_notification_token`: required in ping and push mode (at most 1024 characters of a bearer
    /// token, RFC 6750 §2.1), ignored in poll mode.
    static func notificationToken(_ given: String?, mode: String) throws -> String? {
        guard mode == "ping" || mode == "push" else { return nil }
        guard let given, !given.isEmpty, given.utf8.count <= 1024,
              given.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._~+/=".unicodeScalars.contains($0)) })
        else {
            throw OIDCService.OAuthError(
                error: "invalid_request", description: "client_notification_token is required in ping and push mode: at most 1024 characters of a bearer token"
            )
        }
        return given
    }

    /// CIBA §7.1 `requested_expiry`: a positive number of seconds, capped at the phone request's lifetime.
    static func expiry(_ given: String?, limit: Duration) throws -> Duration {
        guard let given else { return limit }
        guard let seconds = Int(given), seconds > 0 else {
            throw OIDCService.OAuthError(error: "invalid_request", description: "requested_expiry must be a positive number of seconds")
        }
        return min(.seconds(seconds), limit)
    }

    /// The scopes Tessera grants of those asked for (unknown ones dropped, as OAuth allows).
    static func grantedScope(_ asked: String) -> String {
        let known = Set(OIDCProviderMetadata.knownScopes)
        var granted: [String] = []
        for scope in asked.split(separator: " ").map(String.init) where known.contains(scope) && !granted.contains(scope) { granted.append(scope) }
        return granted.joined(separator: " ")
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
