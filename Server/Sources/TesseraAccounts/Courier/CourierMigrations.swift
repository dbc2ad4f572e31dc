/// The tables of Courier/ (message outbox), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum CourierMigrations {
    /// Version 1: the courier's outbox of messages to send (`outbox`).
    package static let outbox = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE outbox (
            id TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            recipient TEXT NOT NULL,
            sealed_payload TEXT,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            locked_until BIGINT,
            last_error TEXT,
            created_at BIGINT NOT NULL,
            sent_at BIGINT
        )
        """,
        "CREATE INDEX outbox_due ON outbox (status, next_attempt_at)",
    ])

    /// Version 6: who holds a message's lease.
    package static let claims = MigrationPart(version: 6, statements: [
        // Who holds an outbox message's lease, so the holder alone renews it.
        "ALTER TABLE outbox ADD COLUMN locked_by TEXT",
    ])
}
