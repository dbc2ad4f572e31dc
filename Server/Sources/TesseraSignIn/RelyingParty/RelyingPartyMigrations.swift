/// The tables of RelyingParty/ (TOTP replay state), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum RelyingPartyMigrations {
    /// Version 4: each user's last accepted TOTP step and failure count (`totp_state`).
    package static let totpState = MigrationPart(version: 4, statements: [
        """
        CREATE TABLE totp_state (
            user_id TEXT PRIMARY KEY REFERENCES users(id),
            last_step BIGINT NOT NULL,
            failures INTEGER NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])
}
