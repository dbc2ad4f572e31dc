/// The tables of Admin/ (server settings), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum AdminMigrations {
    /// Version 1: settings the server keeps in the database, such as the admin token's hash (`server_settings`).
    package static let serverSettings = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE server_settings (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )
        """,
    ])
}
