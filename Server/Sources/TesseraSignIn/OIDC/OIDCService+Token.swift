import Crypto
import Foundation
import TesseraCore

/// The token and userinfo endpoints (RFC 6749 §5, OIDC Core §3.1.3 and §5.3).
extension OIDCService {
    /// An OAuth error of the token or userinfo endpoint (RFC 6749 §5.2, RFC 6750 §3).
    package struct OAuthError: Error, Sendable {
        package var error: String
        package var description: String
        package var status: Int = 400
    }

    /// The token response (RFC 6749 §5.1, OIDC Core §3.1.3.3).
    package struct TokenResponse: Codable, Sendable {
        package var accessToken: String
        package var tokenType = "Bearer"
        package var expiresIn: Int
        package var idToken: String
        package var scope: String
        /// With `offline_access`: the refresh token (a new one on each refresh).
        package var refreshToken: String?

        package enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", idToken = "id_token", scope
            case refreshToken = "refresh_token"
        }
    }

    /// Exchanges a code; `client` has authenticated already (basic or post).
    package func exchange(client: Client, form: [String: String]) async throws -> TokenResponse {
        switch form["grant_type"] {
        case "authorization_code": break
        case "refresh_token": return try await refresh(client: client, form: form)
        default:
            throw OAuthError(
                error: "unsupported_grant_type", description: "grant_type must be authorization_code, refresh_token or urn:openid:params:grant-type:ciba"
            )
        }
        guard let code = form["code"], !code.isEmpty, code.count <= 200, let redirectUri = form["redirect_uri"],
              let verifier = form["code_verifier"]
        else { throw OAuthError(error: "invalid_request", description: "code, redirect_uri and code_verifier are required") }
        let now = clock.now()
        let codeHash = hasher.hash(code, domain: Self.codeDomain)
        guard let record = try await repository.code(hash: codeHash), now < record.expiresAt else {
            throw OAuthError(error: "invalid_grant", description: "the code is unknown or expired")
        }
        guard record.usedAt == nil else {
            // A code presented twice: whoever holds it may not be the client; what it gave out stops working.
            try await repository.revokeTokens(codeHash: codeHash, at: now)
            throw OAuthError(error: "invalid_grant", description: "the code was already used")
        }
        guard record.clientId == client.id else { throw OAuthError(error: "invalid_grant", description: "the code was issued to another client") }
        guard record.redirectUri == redirectUri else { throw OAuthError(error: "invalid_grant", description: "redirect_uri does not match") }
        guard (43...128).contains(verifier.count), Self.challenge(of: verifier) == record.codeChallenge else {
            throw OAuthError(error: "invalid_grant", description: "the PKCE code_verifier does not match the code_challenge")
        }
        guard try await repository.markUsed(codeHash: codeHash, at: now) else {
            try await repository.revokeTokens(codeHash: codeHash, at: now)
            throw OAuthError(error: "invalid_grant", description: "the code was already used")
        }
        return try await issueTokens(
            client: client, userKey: record.userKey, scope: record.scope, authTime: record.authTime, amr: record.amr,
            nonce: record.nonce.isEmpty ? nil : record.nonce, family: codeHash, sessionId: record.sessionId, at: now
        )
    }

    /// An access token (and, with `offline_access`, a refresh token) stored under `family` (what revokes them
    /// together: the code's hash, or a CIBA request's), and the ID token: the answer of a grant that succeeded.
    package func issueTokens(
        client: Client, userKey: String, scope: String, authTime: Int64, amr: [String], nonce: String?, family: String, sessionId: String?,
        nodes: [String]? = nil, authReqId: String? = nil, at now: Int64
    ) async throws -> TokenResponse {
        let accessToken = random.token(prefix: "oat_")
        // OIDC Core §11: offline_access asks for a refresh token; the approval on the phone is the consent.
        let refreshToken = scope.split(separator: " ").contains("offline_access") ? random.token(prefix: "ort_") : nil
        try await repository.insertToken(
            hash: hasher.hash(accessToken, domain: Self.tokenDomain), codeHash: family,
            OIDCAccessToken(clientId: client.id, userKey: userKey, scope: scope, expiresAt: now + accessTokenLifetime.millis, sessionId: sessionId),
            refresh: refreshToken.map {
                OIDCRefreshToken(
                    tokenHash: hasher.hash($0, domain: Self.refreshDomain), family: family, clientId: client.id, userKey: userKey,
                    scope: scope, authTime: authTime, amr: amr, expiresAt: now + refreshTokenLifetime.millis, sessionId: sessionId
                )
            },
            at: now
        )
        return TokenResponse(
            accessToken: accessToken, expiresIn: Int(accessTokenLifetime.components.seconds),
            idToken: try await idToken(
                client: client, userKey: userKey, scope: scope, authTime: authTime, amr: amr, nonce: nonce, accessToken: accessToken, sid: sessionId,
                nodes: nodes, push: authReqId.map { ($0, refreshToken) }, at: now
            ),
            scope: scope, refreshToken: refreshToken
        )
    }

    /// A signed ID token for `client` (OIDC Core §2, §3.1.3.6).
    package func idToken(
        client: Client, userKey: String, scope: String, authTime: Int64, amr: [String], nonce: String?, accessToken: String, sid: String?,
        nodes: [String]? = nil, push: (authReqId: String, refreshToken: String?)? = nil, at now: Int64
    ) async throws -> String {
        let issuedAt = Date(timeIntervalSince1970: TimeInterval(now / 1000))
        let profile = try await profileClaims(clientId: client.id, userKey: userKey, scope: scope)
        let claims = IDTokenClaims(
            iss: .init(value: issuer), sub: .init(value: userKey), aud: .init(value: [client.clientKey]),
            exp: .init(value: issuedAt.addingTimeInterval(TimeInterval(idTokenLifetime.components.seconds))), iat: .init(value: issuedAt),
            authTime: authTime, nonce: nonce, amr: amr, azp: client.clientKey,
            atHash: Self.tokenHash(accessToken), email: profile["email"], name: profile["name"], phoneNumber: profile["phone_number"], sid: sid,
            nodes: nodes, authReqId: push?.authReqId, rtHash: push?.refreshToken.map(Self.tokenHash)
        )
        let algorithm = try await repository.settings(clientId: client.id).flatMap { SigningAlgorithm(rawValue: $0.idTokenSignedResponseAlg) }
        return try await tokens.sign(claims, algorithm: algorithm ?? .es256)
    }

    /// `at_hash` of an access token for an ES256 or RS256 ID token: the left half of its SHA-256, base64url (OIDC Core §3.1.3.6).
    package static func tokenHash(_ token: String) -> String {
        Data(SHA256.hash(data: Data(token.utf8)).prefix(16)).base64URLEncodedString()
    }

    /// The claims the scope asks for, from the user's record: `email` (scope `email`), `name` (scope
    /// `profile`) and `phone_number` (scope `phone`), each when the user has one.
    package func profileClaims(clientId: String, userKey: String, scope: String) async throws -> [String: String] {
        let scopes = scope.split(separator: " ")
        guard scopes.contains("email") || scopes.contains("profile") || scopes.contains("phone") else { return [:] }
        let users = self.users
        guard let user = try await database.read({ sql in try await users.find(clientId: clientId, userKey: userKey, in: sql) }) else { return [:] }
        var claims: [String: String] = [:]
        if scopes.contains("email"), !user.email.isEmpty { claims["email"] = user.email }
        if scopes.contains("profile"), !user.name.isEmpty { claims["name"] = user.name }
        if scopes.contains("phone"), !user.phone.isEmpty { claims["phone_number"] = user.phone }
        return claims
    }

    /// The PKCE S256 challenge of a verifier (RFC 7636 §4.2).
    package static func challenge(of verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncodedString()
    }

    // MARK: UserInfo

    /// The claims of the access token's user: `sub`, and those of ``profileClaims(clientId:userKey:scope:)``.
    package func userInfo(accessToken: String) async throws -> [String: String] {
        guard accessToken.count <= 200, let token = try await repository.token(hash: hasher.hash(accessToken, domain: Self.tokenDomain)),
              token.revokedAt == nil, clock.now() < token.expiresAt
        else { throw OAuthError(error: "invalid_token", description: "the access token is unknown, expired or revoked", status: 401) }
        var claims = try await profileClaims(clientId: token.clientId, userKey: token.userKey, scope: token.scope)
        claims["sub"] = token.userKey
        return claims
    }
}
