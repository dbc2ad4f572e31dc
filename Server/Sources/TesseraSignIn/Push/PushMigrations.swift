/// The tables of Push/ (push outbox and push settings), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum PushMigrations {
    /// Version 7: the push outbox (`push_outbox`).
    package static let outbox = MigrationPart(version: 7, statements: [
        // One row per device to wake for a relying-party request, written in the request's
        // transaction; delivered under a lease like the courier's outbox. No personal data.
        """
        CREATE TABLE push_outbox (
            id TEXT PRIMARY KEY,
            channel_id TEXT NOT NULL,
            client_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            expires_at BIGINT NOT NULL,
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
        "CREATE INDEX push_outbox_due ON push_outbox (status, next_attempt_at)",
    ])

    /// Version 7: each client's APNs or FCM settings (`client_push_settings`).
    package static let clientSettings = MigrationPart(version: 7, statements: [
        // A client's APNs or FCM settings; the private key is sealed under a key from the master key.
        """
        CREATE TABLE client_push_settings (
            client_id TEXT PRIMARY KEY,
            provider TEXT NOT NULL,
            settings TEXT NOT NULL,
            sealed_secret TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])
}
