/// The tables of OIDC/ (OpenID Connect provider), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum OIDCMigrations {
    /// Version 8: per-client OpenID Connect settings (`oidc_clients`).
    package static let clients = MigrationPart(version: 8, statements: [
        """
        CREATE TABLE oidc_clients (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            redirect_uris TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 8: the pending authorizations of the hosted sign-in page (`oidc_requests`).
    package static let requests = MigrationPart(version: 8, statements: [
        """
        CREATE TABLE oidc_requests (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            client_key TEXT NOT NULL,
            redirect_uri TEXT NOT NULL,
            state TEXT NOT NULL,
            nonce TEXT NOT NULL,
            code_challenge TEXT NOT NULL,
            scope TEXT NOT NULL,
            csrf_hash TEXT NOT NULL,
            channel_id TEXT,
            identified_at BIGINT,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            completed_at BIGINT
        )
        """,
        "CREATE INDEX oidc_requests_expiry ON oidc_requests (expires_at)",
    ])

    /// Version 8: authorization codes, stored as keyed hashes (`oidc_codes`).
    package static let codes = MigrationPart(version: 8, statements: [
        """
        CREATE TABLE oidc_codes (
            code_hash TEXT PRIMARY KEY,
            request_id TEXT NOT NULL,
            client_id TEXT NOT NULL REFERENCES clients(id),
            redirect_uri TEXT NOT NULL,
            code_challenge TEXT NOT NULL,
            nonce TEXT NOT NULL,
            scope TEXT NOT NULL,
            user_key TEXT NOT NULL,
            auth_time BIGINT NOT NULL,
            amr TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_at BIGINT
        )
        """,
    ])

    /// Version 8: access tokens, stored as keyed hashes (`oidc_tokens`).
    package static let tokens = MigrationPart(version: 8, statements: [
        """
        CREATE TABLE oidc_tokens (
            token_hash TEXT PRIMARY KEY,
            code_hash TEXT NOT NULL,
            client_id TEXT NOT NULL REFERENCES clients(id),
            user_key TEXT NOT NULL,
            scope TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            revoked_at BIGINT
        )
        """,
        "CREATE INDEX oidc_tokens_code ON oidc_tokens (code_hash)",
    ])

    /// Version 9: number matching: the per-client switch of the hosted sign-in page.
    package static let numberMatching = MigrationPart(version: 9, statements: [
        "ALTER TABLE oidc_clients ADD COLUMN number_matching INTEGER NOT NULL DEFAULT 0",
    ])

    /// Version 13: refresh tokens (`offline_access`), stored as keyed hashes (`oidc_refresh_tokens`). A
    /// family is every token of one sign-in: the hash of the code it began with, as the access tokens'
    /// `code_hash` is; a refresh token used twice revokes the family (RFC 9700 §4.14.2). The expiry
    /// indexes the janitor's purge reads.
    package static let refreshTokens = MigrationPart(version: 13, statements: [
        """
        CREATE TABLE oidc_refresh_tokens (
            token_hash TEXT PRIMARY KEY,
            family TEXT NOT NULL,
            client_id TEXT NOT NULL REFERENCES clients(id),
            user_key TEXT NOT NULL,
            scope TEXT NOT NULL,
            auth_time BIGINT NOT NULL,
            amr TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_at BIGINT,
            revoked_at BIGINT
        )
        """,
        "CREATE INDEX oidc_refresh_tokens_family ON oidc_refresh_tokens (family)",
        "CREATE INDEX oidc_refresh_tokens_expiry ON oidc_refresh_tokens (expires_at)",
        "CREATE INDEX oidc_tokens_expiry ON oidc_tokens (expires_at)",
        "CREATE INDEX oidc_codes_expiry ON oidc_codes (expires_at)",
    ])

    /// Version 13: how each client's ID tokens are signed (`ES256` or `RS256`).
    package static let idTokenAlgorithm = MigrationPart(version: 13, statements: [
        "ALTER TABLE oidc_clients ADD COLUMN id_token_alg TEXT NOT NULL DEFAULT 'ES256'",
    ])
}

extension OIDCMigrations {
    /// Version 14: sessions at Tessera (a signed-in browser, one row per browser and client: `oidc_sessions`),
    /// the session each code and token belongs to (its `sid`), the clients' logout settings, and the
    /// back-channel logout outbox (one row per ended session whose client listens; leased like the push outbox).
    package static let sessions = MigrationPart(version: 14, statements: [
        """
        CREATE TABLE oidc_sessions (
            id TEXT PRIMARY KEY,
            browser_hash TEXT NOT NULL,
            client_id TEXT NOT NULL REFERENCES clients(id),
            client_key TEXT NOT NULL,
            user_key TEXT NOT NULL,
            auth_time BIGINT NOT NULL,
            amr TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            ended_at BIGINT
        )
        """,
        "CREATE INDEX oidc_sessions_browser ON oidc_sessions (browser_hash)",
        "CREATE INDEX oidc_sessions_expiry ON oidc_sessions (expires_at)",
        "ALTER TABLE oidc_codes ADD COLUMN session_id TEXT",
        "ALTER TABLE oidc_tokens ADD COLUMN session_id TEXT",
        "ALTER TABLE oidc_refresh_tokens ADD COLUMN session_id TEXT",
        "CREATE INDEX oidc_tokens_session ON oidc_tokens (session_id)",
        "CREATE INDEX oidc_refresh_tokens_session ON oidc_refresh_tokens (session_id)",
        "ALTER TABLE oidc_clients ADD COLUMN post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE oidc_clients ADD COLUMN backchannel_logout_uri TEXT",
        """
        CREATE TABLE oidc_logout_outbox (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL,
            client_id TEXT NOT NULL REFERENCES clients(id),
            client_key TEXT NOT NULL,
            user_key TEXT NOT NULL,
            uri TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            locked_until BIGINT,
            locked_by TEXT,
            last_error TEXT,
            created_at BIGINT NOT NULL,
            sent_at BIGINT
        )
        """,
        "CREATE INDEX oidc_logout_outbox_due ON oidc_logout_outbox (status, next_attempt_at)",
    ])

    /// Version 15: the hosted page's branding per client (display name, accent colour, logo stored as
    /// base64 with its type and digest) and the language a pending authorization asked for (`ui_locales`).
    package static let branding = MigrationPart(version: 15, statements: [
        "ALTER TABLE oidc_clients ADD COLUMN display_name TEXT",
        "ALTER TABLE oidc_clients ADD COLUMN accent_color TEXT",
        "ALTER TABLE oidc_clients ADD COLUMN logo_type TEXT",
        "ALTER TABLE oidc_clients ADD COLUMN logo_data TEXT",
        "ALTER TABLE oidc_clients ADD COLUMN logo_digest TEXT",
        "ALTER TABLE oidc_requests ADD COLUMN locale TEXT",
    ])

    /// Version 17: whether the hosted page offers a passkey after a phone-approved sign-in (issue 38).
    package static let offerPasskeys = MigrationPart(version: 17, statements: [
        "ALTER TABLE oidc_clients ADD COLUMN offer_passkeys INTEGER NOT NULL DEFAULT 0",
    ])

    /// Version 20: each client's own public keys (`oidc_client_keys`, a JWK Set: `private_key_jwt` and CIBA
    /// `login_hint_token`), and the client assertions used until they expire (`oidc_client_assertions`, replays refused).
    package static let clientKeys = MigrationPart(version: 20, statements: [
        """
        CREATE TABLE oidc_client_keys (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            jwks TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE oidc_client_assertions (
            id_hash TEXT PRIMARY KEY,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX oidc_client_assertions_expiry ON oidc_client_assertions (expires_at)",
    ])
}
