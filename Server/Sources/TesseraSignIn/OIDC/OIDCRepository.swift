import Foundation
import SQLKit

/// Storage of the OIDC domain, the one owner of `oidc_clients`, `oidc_requests`, `oidc_codes`, `oidc_tokens` and
/// `oidc_refresh_tokens`.
package protocol OIDCRepository: Sendable {
    func settings(clientId: String) async throws -> OIDCClientSettings?
    func setSettings(_ settings: OIDCClientSettings, clientId: String, at time: Int64) async throws
    func insert(_ request: OIDCPendingRequest) async throws
    func request(_ id: String) async throws -> OIDCPendingRequest?
    /// Records the identifier step once, inside the caller's transaction (the one that opens the
    /// channel): false when the request was already identified.
    func identify(_ id: String, channelId: String?, at time: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Marks the request completed and stores its code, at most once: false when it was completed already.
    func complete(_ id: String, code: OIDCCode, at time: Int64) async throws -> Bool
    /// Marks the request completed without a code (declined, expired, cancelled, restarted), at most
    /// once: false when it was completed already.
    func end(_ id: String, at time: Int64) async throws -> Bool
    func code(hash: String) async throws -> OIDCCode?
    /// Marks the code used: false when it was used already.
    func markUsed(codeHash: String, at time: Int64) async throws -> Bool
    /// Stores an access token of the code's family and, with `offline_access`, the family's first
    /// refresh token, in one transaction.
    func insertToken(hash: String, codeHash: String, _ token: OIDCAccessToken, refresh: OIDCRefreshToken?, at time: Int64) async throws
    /// Revokes every token of a code's family: its access tokens and its refresh tokens (a code
    /// presented twice, a refresh token used twice, a refresh token revoked by its client).
    func revokeTokens(codeHash: String, at time: Int64) async throws
    func token(hash: String) async throws -> OIDCAccessToken?
    /// Revokes one access token: false when it is unknown or was revoked already.
    func revokeToken(hash: String, at time: Int64) async throws -> Bool
    func refreshToken(hash: String) async throws -> OIDCRefreshToken?
    /// Uses a refresh token, once: marks it used and stores its successor and the new access token
    /// (of the same family), all in one transaction. False, storing nothing, when it was used or
    /// revoked already (of two concurrent uses, one wins).
    func rotate(refreshHash: String, successor: OIDCRefreshToken, accessHash: String, access: OIDCAccessToken, at time: Int64) async throws -> Bool
    /// Removes requests, codes, access tokens and refresh tokens that ended before `cutoff`.
    func purge(before cutoff: Int64) async throws
    /// Stores (or, with nil, removes) the client's logo: false when the client has no OIDC settings.
    func setLogo(_ logo: ClientLogo?, clientId: String, at time: Int64) async throws -> Bool
    /// The client's logo, if it has one.
    func logo(clientId: String) async throws -> ClientLogo?
}

extension OIDCRepository {
    /// Stores an access token without a refresh token.
    package func insertToken(hash: String, codeHash: String, _ token: OIDCAccessToken, at time: Int64) async throws {
        try await insertToken(hash: hash, codeHash: codeHash, token, refresh: nil, at: time)
    }
}

/// ``OIDCRepository`` over SQLite or PostgreSQL.
package struct SQLOIDCRepository: OIDCRepository {
    package let database: any Database

    package init(database: any Database) {
        self.database = database
    }

    package func settings(clientId: String) async throws -> OIDCClientSettings? {
        try await database.read { sql in
            guard let row = try await sql.raw(
                """
                SELECT redirect_uris, number_matching, id_token_alg, post_logout_redirect_uris, backchannel_logout_uri, display_name, accent_color,
                       logo_digest, offer_passkeys
                FROM oidc_clients WHERE client_id = \(bind: clientId)
                """
            ).first() else { return nil }
            func uris(_ column: String) throws -> [String] {
                try JSONDecoder().decode([String].self, from: Data(try row.decode(column: column, as: String.self).utf8))
            }
            return OIDCClientSettings(
                redirectUris: try uris("redirect_uris"), numberMatching: try row.decode(column: "number_matching", as: Int.self) != 0,
                idTokenSignedResponseAlg: try row.decode(column: "id_token_alg", as: String.self),
                postLogoutRedirectUris: try uris("post_logout_redirect_uris"),
                backchannelLogoutUri: try row.decode(column: "backchannel_logout_uri", as: String?.self),
                displayName: try row.decode(column: "display_name", as: String?.self),
                accentColor: try row.decode(column: "accent_color", as: String?.self),
                logoDigest: try row.decode(column: "logo_digest", as: String?.self),
                offerPasskeys: try row.decode(column: "offer_passkeys", as: Int.self) != 0
            )
        }
    }

    package func setSettings(_ settings: OIDCClientSettings, clientId: String, at time: Int64) async throws {
        let uris = String(decoding: try JSONEncoder().encode(settings.redirectUris), as: UTF8.self)
        let matching = settings.numberMatching ? 1 : 0
        let logoutUris = String(decoding: try JSONEncoder().encode(settings.postLogoutRedirectUris), as: UTF8.self)
        let backchannel = settings.backchannelLogoutUri
        let offer = settings.offerPasskeys ? 1 : 0
        try await database.withSQL { sql in
            try await sql.raw(
                """
                INSERT INTO oidc_clients (client_id, redirect_uris, number_matching, id_token_alg, post_logout_redirect_uris, backchannel_logout_uri,
                                          display_name, accent_color, offer_passkeys, updated_at)
                VALUES (\(bind: clientId), \(bind: uris), \(bind: matching), \(bind: settings.idTokenSignedResponseAlg), \(bind: logoutUris),
                        \(bind: backchannel), \(bind: settings.displayName), \(bind: settings.accentColor), \(bind: offer), \(bind: time))
                ON CONFLICT (client_id) DO UPDATE SET redirect_uris = \(bind: uris), number_matching = \(bind: matching),
                    id_token_alg = \(bind: settings.idTokenSignedResponseAlg), post_logout_redirect_uris = \(bind: logoutUris),
                    backchannel_logout_uri = \(bind: backchannel), display_name = \(bind: settings.displayName),
                    accent_color = \(bind: settings.accentColor), offer_passkeys = \(bind: offer), updated_at = \(bind: time)
                """
            ).run()
        }
    }

    package func insert(_ request: OIDCPendingRequest) async throws {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                INSERT INTO oidc_requests (id, client_id, client_key, redirect_uri, state, nonce, code_challenge, scope, csrf_hash, created_at, expires_at, locale)
                VALUES (\(bind: request.id), \(bind: request.clientId), \(bind: request.clientKey), \(bind: request.redirectUri), \(bind: request.state),
                        \(bind: request.nonce), \(bind: request.codeChallenge), \(bind: request.scope), \(bind: request.csrfHash),
                        \(bind: request.createdAt), \(bind: request.expiresAt), \(bind: request.locale))
                """
            ).run()
        }
    }

    package func request(_ id: String) async throws -> OIDCPendingRequest? {
        try await database.read { sql in
            guard let row = try await sql.raw(
                """
                SELECT id, client_id, client_key, redirect_uri, state, nonce, code_challenge, scope, csrf_hash, channel_id, identified_at,
                       created_at, expires_at, completed_at, locale FROM oidc_requests WHERE id = \(bind: id)
                """
            ).first() else { return nil }
            return OIDCPendingRequest(
                id: try row.decode(column: "id", as: String.self), clientId: try row.decode(column: "client_id", as: String.self),
                clientKey: try row.decode(column: "client_key", as: String.self), redirectUri: try row.decode(column: "redirect_uri", as: String.self), state: try row.decode(column: "state", as: String.self),
                nonce: try row.decode(column: "nonce", as: String.self), codeChallenge: try row.decode(column: "code_challenge", as: String.self),
                scope: try row.decode(column: "scope", as: String.self), csrfHash: try row.decode(column: "csrf_hash", as: String.self),
                channelId: try row.decode(column: "channel_id", as: String?.self),
                identifiedAt: try row.decode(column: "identified_at", as: Int64?.self), createdAt: try row.decode(column: "created_at", as: Int64.self),
                expiresAt: try row.decode(column: "expires_at", as: Int64.self), completedAt: try row.decode(column: "completed_at", as: Int64?.self),
                locale: try row.decode(column: "locale", as: String?.self)
            )
        }
    }

    package func identify(_ id: String, channelId: String?, at time: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE oidc_requests SET channel_id = \(bind: channelId), identified_at = \(bind: time)
            WHERE id = \(bind: id) AND identified_at IS NULL RETURNING id
            """
        ).first() != nil
    }

    package func complete(_ id: String, code: OIDCCode, at time: Int64) async throws -> Bool {
        let amr = String(decoding: try JSONEncoder().encode(code.amr), as: UTF8.self)
        return try await database.transaction { sql in
            guard try await sql.raw(
                "UPDATE oidc_requests SET completed_at = \(bind: time) WHERE id = \(bind: id) AND completed_at IS NULL RETURNING id"
            ).first() != nil else { return false }
            try await sql.raw(
                """
                INSERT INTO oidc_codes (code_hash, request_id, client_id, redirect_uri, code_challenge, nonce, scope, user_key, auth_time, amr,
                                        created_at, expires_at, session_id)
                VALUES (\(bind: code.codeHash), \(bind: code.requestId), \(bind: code.clientId), \(bind: code.redirectUri),
                        \(bind: code.codeChallenge), \(bind: code.nonce), \(bind: code.scope), \(bind: code.userKey), \(bind: code.authTime),
                        \(bind: amr), \(bind: time), \(bind: code.expiresAt), \(bind: code.sessionId))
                """
            ).run()
            return true
        }
    }

    package func end(_ id: String, at time: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw(
                "UPDATE oidc_requests SET completed_at = \(bind: time) WHERE id = \(bind: id) AND completed_at IS NULL RETURNING id"
            ).first() != nil
        }
    }

    package func code(hash codeHash: String) async throws -> OIDCCode? {
        try await database.read { sql in
            guard let row = try await sql.raw(
                """
                SELECT code_hash, request_id, client_id, redirect_uri, code_challenge, nonce, scope, user_key, auth_time, amr, expires_at, used_at,
                       session_id
                FROM oidc_codes WHERE code_hash = \(bind: codeHash)
                """
            ).first() else { return nil }
            return OIDCCode(
                codeHash: try row.decode(column: "code_hash", as: String.self), requestId: try row.decode(column: "request_id", as: String.self),
                clientId: try row.decode(column: "client_id", as: String.self), redirectUri: try row.decode(column: "redirect_uri", as: String.self),
                codeChallenge: try row.decode(column: "code_challenge", as: String.self), nonce: try row.decode(column: "nonce", as: String.self),
                scope: try row.decode(column: "scope", as: String.self), userKey: try row.decode(column: "user_key", as: String.self),
                authTime: try row.decode(column: "auth_time", as: Int64.self),
                amr: try JSONDecoder().decode([String].self, from: Data(try row.decode(column: "amr", as: String.self).utf8)),
                expiresAt: try row.decode(column: "expires_at", as: Int64.self), usedAt: try row.decode(column: "used_at", as: Int64?.self),
                sessionId: try row.decode(column: "session_id", as: String?.self)
            )
        }
    }

    package func markUsed(codeHash: String, at time: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            // Conditional, so of two concurrent redemptions only one wins.
            try await sql.raw(
                "UPDATE oidc_codes SET used_at = \(bind: time) WHERE code_hash = \(bind: codeHash) AND used_at IS NULL RETURNING code_hash"
            ).first() != nil
        }
    }

    package func insertToken(hash: String, codeHash: String, _ token: OIDCAccessToken, refresh: OIDCRefreshToken?, at time: Int64) async throws {
        try await database.transaction { sql in
            try await Self.insertAccess(hash: hash, codeHash: codeHash, token, at: time, in: sql)
            if let refresh { try await Self.insertRefresh(refresh, at: time, in: sql) }
        }
    }

    private static func insertAccess(hash: String, codeHash: String, _ token: OIDCAccessToken, at time: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO oidc_tokens (token_hash, code_hash, client_id, user_key, scope, created_at, expires_at, session_id)
            VALUES (\(bind: hash), \(bind: codeHash), \(bind: token.clientId), \(bind: token.userKey), \(bind: token.scope), \(bind: time),
                    \(bind: token.expiresAt), \(bind: token.sessionId))
            """
        ).run()
    }

    private static func insertRefresh(_ token: OIDCRefreshToken, at time: Int64, in sql: any SQLDatabase) async throws {
        let amr = String(decoding: try JSONEncoder().encode(token.amr), as: UTF8.self)
        try await sql.raw(
            """
            INSERT INTO oidc_refresh_tokens (token_hash, family, client_id, user_key, scope, auth_time, amr, created_at, expires_at, session_id)
            VALUES (\(bind: token.tokenHash), \(bind: token.family), \(bind: token.clientId), \(bind: token.userKey), \(bind: token.scope),
                    \(bind: token.authTime), \(bind: amr), \(bind: time), \(bind: token.expiresAt), \(bind: token.sessionId))
            """
        ).run()
    }

    package func revokeTokens(codeHash: String, at time: Int64) async throws {
        try await database.transaction { sql in
            try await sql.raw("UPDATE oidc_tokens SET revoked_at = \(bind: time) WHERE code_hash = \(bind: codeHash) AND revoked_at IS NULL").run()
            try await sql.raw("UPDATE oidc_refresh_tokens SET revoked_at = \(bind: time) WHERE family = \(bind: codeHash) AND revoked_at IS NULL").run()
        }
    }

    package func revokeToken(hash: String, at time: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw(
                "UPDATE oidc_tokens SET revoked_at = \(bind: time) WHERE token_hash = \(bind: hash) AND revoked_at IS NULL RETURNING token_hash"
            ).first() != nil
        }
    }

    package func refreshToken(hash: String) async throws -> OIDCRefreshToken? {
        try await database.read { sql in
            guard let row = try await sql.raw(
                """
                SELECT token_hash, family, client_id, user_key, scope, auth_time, amr, expires_at, used_at, revoked_at, session_id
                FROM oidc_refresh_tokens WHERE token_hash = \(bind: hash)
                """
            ).first() else { return nil }
            return OIDCRefreshToken(
                tokenHash: try row.decode(column: "token_hash", as: String.self), family: try row.decode(column: "family", as: String.self),
                clientId: try row.decode(column: "client_id", as: String.self), userKey: try row.decode(column: "user_key", as: String.self),
                scope: try row.decode(column: "scope", as: String.self), authTime: try row.decode(column: "auth_time", as: Int64.self),
                amr: try JSONDecoder().decode([String].self, from: Data(try row.decode(column: "amr", as: String.self).utf8)),
                expiresAt: try row.decode(column: "expires_at", as: Int64.self), usedAt: try row.decode(column: "used_at", as: Int64?.self),
                revokedAt: try row.decode(column: "revoked_at", as: Int64?.self), sessionId: try row.decode(column: "session_id", as: String?.self)
            )
        }
    }

    package func rotate(
        refreshHash: String, successor: OIDCRefreshToken, accessHash: String, access: OIDCAccessToken, at time: Int64
    ) async throws -> Bool {
        try await database.transaction { sql in
            // Conditional, so of two concurrent uses only one wins.
            guard try await sql.raw(
                """
                UPDATE oidc_refresh_tokens SET used_at = \(bind: time)
                WHERE token_hash = \(bind: refreshHash) AND used_at IS NULL AND revoked_at IS NULL RETURNING token_hash
                """
            ).first() != nil else { return false }
            try await Self.insertRefresh(successor, at: time, in: sql)
            try await Self.insertAccess(hash: accessHash, codeHash: successor.family, access, at: time, in: sql)
            return true
        }
    }

    package func token(hash: String) async throws -> OIDCAccessToken? {
        try await database.read { sql in
            guard let row = try await sql.raw(
                "SELECT client_id, user_key, scope, expires_at, revoked_at, session_id FROM oidc_tokens WHERE token_hash = \(bind: hash)"
            ).first() else { return nil }
            return OIDCAccessToken(
                clientId: try row.decode(column: "client_id", as: String.self), userKey: try row.decode(column: "user_key", as: String.self),
                scope: try row.decode(column: "scope", as: String.self), expiresAt: try row.decode(column: "expires_at", as: Int64.self),
                revokedAt: try row.decode(column: "revoked_at", as: Int64?.self), sessionId: try row.decode(column: "session_id", as: String?.self)
            )
        }
    }

    package func purge(before cutoff: Int64) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM oidc_requests WHERE expires_at < \(bind: cutoff)").run()
            try await sql.raw("DELETE FROM oidc_codes WHERE expires_at < \(bind: cutoff)").run()
            try await sql.raw("DELETE FROM oidc_tokens WHERE expires_at < \(bind: cutoff)").run()
            try await sql.raw("DELETE FROM oidc_refresh_tokens WHERE expires_at < \(bind: cutoff)").run()
        }
    }
}
