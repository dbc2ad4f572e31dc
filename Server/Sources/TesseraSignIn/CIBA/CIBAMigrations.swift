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
}
