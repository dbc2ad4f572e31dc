/// The tables of Clients/ (client apps and their policies), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum ClientsMigrations {
    /// Version 1: the client apps (`clients`), which most tables reference.
    package static let clients = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE clients (
            id TEXT PRIMARY KEY,
            client_key TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            bundle_ids TEXT NOT NULL,
            secret_hash TEXT NOT NULL,
            enabled INTEGER NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 5: each client's policy (`client_policies`).
    package static let policies = MigrationPart(version: 5, statements: [
        """
        CREATE TABLE client_policies (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            policy TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])
}
