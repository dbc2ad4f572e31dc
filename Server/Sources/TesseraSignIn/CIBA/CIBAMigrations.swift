/// The tables of CIBA/ (OpenID Client-Initiated Backchannel Authentication, issue 39), as this domain's shares of
/// the schema versions. `Migrator.all` orders every domain's parts into the versions; a released part never changes.
package enum CIBAMigrations {
    /// Version 19: each backchannel authentication request (`ciba_requests`), by the keyed hash of its
    /// `auth_req_id`: the relying-party request it became (none when the hint named no one: the request then only
    /// expires, so that the answer never tells), its scope and expiry, the polling interval it was given and when
    /// it was last polled (`slow_down`), and when its tokens were issued (used once).
    package static let requests = MigrationPart(version: 19, statements: [
        """
        CREATE TABLE ciba_requests (
            id_hash TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            channel_id TEXT,
            scope TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            interval_ms BIGINT NOT NULL,
            polled_at BIGINT,
            used_at BIGINT
        )
        """,
        "CREATE INDEX ciba_requests_expiry ON ciba_requests (expires_at)",
    ])

    /// Version 19: the ping notifications (`ciba_ping_outbox`, CIBA §10.2): one per ping-mode request, written with it,
    /// due when its relying-party request ended (or at its expiry), then sent under a lease with retries. The
    /// `auth_req_id` and the client's `client_notification_token` are sealed, and cleared once given up.
    package static let pings = MigrationPart(version: 19, statements: [
        """
        CREATE TABLE ciba_ping_outbox (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            channel_id TEXT,
            sealed TEXT,
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
        "CREATE INDEX ciba_ping_outbox_due ON ciba_ping_outbox (status, next_attempt_at)",
    ])

    /// Version 19: each client's CIBA delivery (`ciba_clients`): `poll` or `ping`, and its registered notification endpoint.
    package static let clients = MigrationPart(version: 19, statements: [
        """
        CREATE TABLE ciba_clients (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            delivery_mode TEXT NOT NULL,
            notification_endpoint TEXT,
            updated_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 20: Tessera as the authentication channel of another identity server's CIBA (Keycloak's HTTP
    /// authentication channel): per client, the other server's issuer, its callback URL and its signing keys (JWKS).
    package static let channelClients = MigrationPart(version: 20, statements: [
        """
        CREATE TABLE ciba_channel_clients (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            issuer TEXT NOT NULL,
            callback_url TEXT NOT NULL,
            jwks TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 20: what an outbox row delivers (`kind`): a ping (`ping`, CIBA §10.2), or the result of an
    /// authentication-channel request, called back to the other server (`channel`).
    package static let outboxKinds = MigrationPart(version: 20, statements: [
        "ALTER TABLE ciba_ping_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'ping'",
    ])

    /// Version 20: whether a client's backchannel requests must carry the user's `user_code` (CIBA §7.1).
    package static let userCode = MigrationPart(version: 20, statements: [
        "ALTER TABLE ciba_clients ADD COLUMN user_code_required INTEGER NOT NULL DEFAULT 0",
    ])
}
