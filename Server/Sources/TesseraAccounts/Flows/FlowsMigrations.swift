/// The tables of Flows/ (registration flows), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum FlowsMigrations {
    /// Version 5: the registration flows (`registration_flows`).
    package static let registrationFlows = MigrationPart(version: 5, statements: [
        """
        CREATE TABLE registration_flows (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            state TEXT NOT NULL,
            phone TEXT,
            dispose_hash TEXT,
            user_id TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX registration_flows_expiry ON registration_flows (expires_at)",
    ])
}
