import Foundation
import TesseraCore

/// Refresh tokens (RFC 6749 §6, OIDC Core §12), their revocation (RFC 7009) and the introspection of
/// the provider's tokens (RFC 7662). A sign-in's tokens are one family (the hash of its code): a
/// refresh token works once and its use gives a new one (rotation); a refresh token used a second
/// time revokes the whole family, as RFC 9700 §4.14.2 says, since either its client or a thief holds a
/// copy.
extension OIDCService {
    /// `grant_type=refresh_token`: a new access token, ID token and refresh token; `client` has
    /// authenticated already. A `scope` may ask for less than the sign-in granted, never for more.
    package func refresh(client: Client, form: [String: String]) async throws -> TokenResponse {
        guard let presented = form["refresh_token"], !presented.isEmpty, presented.count <= 200 else {
            throw OAuthError(error: "invalid_request", description: "refresh_token is required")
        }
        let now = clock.now()
        let hash = hasher.hash(presented, domain: Self.refreshDomain)
        // Another client's token is as unknown as a made-up one (RFC 6749 §6: issued to the authenticated client).
        guard let record = try await repository.refreshToken(hash: hash), record.clientId == client.id else {
            throw OAuthError(error: "invalid_grant", description: "the refresh token is unknown")
        }
        guard record.revokedAt == nil, now < record.expiresAt else {
            throw OAuthError(error: "invalid_grant", description: "the refresh token expired or was revoked")
        }
        guard record.usedAt == nil else { throw try await reused(record, at: now) }
        let granted = Set(record.scope.split(separator: " ").map(String.init))
        var scope = record.scope
        if let asked = form["scope"] {
            let wanted = asked.split(separator: " ").map(String.init)
            guard !wanted.isEmpty, asked.count <= 500, Set(wanted).isSubset(of: granted), wanted.contains("openid") else {
                throw OAuthError(error: "invalid_scope", description: "scope must contain openid and be within the scope of the sign-in")
            }
            scope = wanted.joined(separator: " ")
        }
        // The user must still be there; a removed user's sign-ins end.
        let users = self.users
        guard try await database.read({ sql in try await users.find(clientId: client.id, userKey: record.userKey, in: sql) }) != nil else {
            try await repository.revokeTokens(codeHash: record.family, at: now)
            throw OAuthError(error: "invalid_grant", description: "the user of this refresh token no longer exists")
        }
        let accessToken = random.token(prefix: "oat_")
        let refreshToken = random.token(prefix: "ort_")
        // The new refresh token keeps the sign-in's scope and end (RFC 6749 §6); the access token gets the scope asked for.
        var successor = record
        successor.tokenHash = hasher.hash(refreshToken, domain: Self.refreshDomain)
        guard try await repository.rotate(
            refreshHash: hash, successor: successor, accessHash: hasher.hash(accessToken, domain: Self.tokenDomain),
            access: OIDCAccessToken(
                clientId: client.id, userKey: record.userKey, scope: scope, expiresAt: now + accessTokenLifetime.millis, sessionId: record.sessionId
            ),
            at: now
        ) else {
            // Used (or revoked) between the read and the use: a concurrent second use.
            throw try await reused(record, at: now)
        }
        // OIDC Core §12.2: the same iss, sub, aud, azp and auth_time, a new iat, and no nonce.
        return TokenResponse(
            accessToken: accessToken, expiresIn: Int(accessTokenLifetime.components.seconds),
            idToken: try await idToken(
                client: client, userKey: record.userKey, scope: scope, authTime: record.authTime, amr: record.amr, nonce: nil,
                accessToken: accessToken, sid: record.sessionId, at: now
            ),
            scope: scope, refreshToken: refreshToken
        )
    }

    /// A refresh token presented after its use: every token of its sign-in is revoked.
    private func reused(_ record: OIDCRefreshToken, at now: Int64) async throws -> OAuthError {
        try await repository.revokeTokens(codeHash: record.family, at: now)
        return OAuthError(error: "invalid_grant", description: "the refresh token was already used; every token of this sign-in is revoked")
    }

    /// `POST /oauth2/revoke` (RFC 7009 §2.1): revokes the client's access token, or its refresh token
    /// and with it every token of the sign-in (§2.1: SHOULD). An unknown token, or another client's, is
    /// answered the same way and left alone (§2.2).
    package func revoke(client: Client, token: String, hint: String?) async throws {
        guard !token.isEmpty, token.count <= 200 else { return }
        let now = clock.now()
        let asRefresh = { () async throws -> Bool in
            guard let record = try await repository.refreshToken(hash: hasher.hash(token, domain: Self.refreshDomain)),
                  record.clientId == client.id
            else { return false }
            try await repository.revokeTokens(codeHash: record.family, at: now)
            return true
        }
        let asAccess = { () async throws -> Bool in
            let hash = hasher.hash(token, domain: Self.tokenDomain)
            guard let record = try await repository.token(hash: hash), record.clientId == client.id else { return false }
            _ = try await repository.revokeToken(hash: hash, at: now)
            return true
        }
        // The hint says where to look first (§2.1); the other kind is tried too.
        if hint == "refresh_token" {
            if try await asRefresh() { return }
            _ = try await asAccess()
        } else {
            if try await asAccess() { return }
            _ = try await asRefresh()
        }
    }

    /// An introspection answer (RFC 7662 §2.2).
    package struct Introspection: Codable, Sendable, Equatable {
        package var active: Bool
        package var scope: String?
        package var clientId: String?
        package var sub: String?
        package var exp: Int64?
        package var tokenType: String?

        package enum CodingKeys: String, CodingKey {
            case active, scope, sub, exp
            case clientId = "client_id", tokenType = "token_type"
        }

        package static let inactive = Introspection(active: false)
    }

    /// `POST /oauth2/introspect` (RFC 7662): an access or refresh token of the authenticated client,
    /// `active` while it is neither expired nor revoked (a refresh token also while unused); anything
    /// else, another client's token included, is `{"active": false}`.
    package func introspect(client: Client, token: String) async throws -> Introspection {
        guard !token.isEmpty, token.count <= 200 else { return .inactive }
        let now = clock.now()
        if let access = try await repository.token(hash: hasher.hash(token, domain: Self.tokenDomain)), access.clientId == client.id {
            guard access.revokedAt == nil, now < access.expiresAt else { return .inactive }
            return Introspection(
                active: true, scope: access.scope, clientId: client.clientKey, sub: access.userKey, exp: access.expiresAt / 1000, tokenType: "Bearer"
            )
        }
        if let refresh = try await repository.refreshToken(hash: hasher.hash(token, domain: Self.refreshDomain)), refresh.clientId == client.id {
            guard refresh.revokedAt == nil, refresh.usedAt == nil, now < refresh.expiresAt else { return .inactive }
            return Introspection(
                active: true, scope: refresh.scope, clientId: client.clientKey, sub: refresh.userKey, exp: refresh.expiresAt / 1000,
                tokenType: "refresh_token"
            )
        }
        return .inactive
    }
}
