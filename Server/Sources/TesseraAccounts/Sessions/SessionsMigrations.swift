/// The tables of Sessions/ (sessions), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum SessionsMigrations {
    /// Version 3: the sessions (`sessions`), after `users` and `devices`, which they reference.
    package static let sessions = MigrationPart(version: 3, statements: [
        """
        CREATE TABLE sessions (
            token_hash TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id),
            device_id TEXT REFERENCES devices(id),
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            revoked_at BIGINT
        )
        """,
    ])

    /// Version 5: session IDs (derived for the rows that existed) and the time of last use.
    package static let idsAndLastUse = MigrationPart(version: 5, statements: [
        "ALTER TABLE sessions ADD COLUMN id TEXT",
        "ALTER TABLE sessions ADD COLUMN last_used_at BIGINT",
        "UPDATE sessions SET id = 'ses_' || substr(token_hash, 1, 24), last_used_at = created_at",
        "CREATE UNIQUE INDEX sessions_id ON sessions (id)",
        "CREATE INDEX sessions_user ON sessions (user_id, created_at)",
    ])
}
