/// The tables of Security/ (sealed server secrets), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum SecurityMigrations {
    /// Version 1: the secrets sealed under the master key (`server_secrets`).
    package static let serverSecrets = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE server_secrets (
            name TEXT PRIMARY KEY,
            sealed TEXT NOT NULL,
            created_at BIGINT NOT NULL
        )
        """,
    ])
}
