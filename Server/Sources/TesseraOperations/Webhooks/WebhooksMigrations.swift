/// The tables of Webhooks/ (webhook endpoints and deliveries), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum WebhooksMigrations {
    /// Version 12: endpoints per client (`webhook_endpoints`): secrets sealed, the previous one kept during a
    /// rotation overlap.
    package static let endpoints = MigrationPart(version: 12, statements: [
        """
        CREATE TABLE webhook_endpoints (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            url TEXT NOT NULL,
            event_types TEXT NOT NULL,
            sealed_secret TEXT NOT NULL,
            sealed_previous_secret TEXT,
            previous_secret_expires_at BIGINT,
            enabled INTEGER NOT NULL,
            failure_count INTEGER NOT NULL DEFAULT 0,
            disabled_reason TEXT,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX webhook_endpoints_client ON webhook_endpoints (client_id, enabled)",
    ])

    /// Version 12: the delivery outbox (`webhook_deliveries`): one row per event and endpoint, leased.
    package static let deliveries = MigrationPart(version: 12, statements: [
        """
        CREATE TABLE webhook_deliveries (
            id TEXT PRIMARY KEY,
            event_id TEXT NOT NULL,
            endpoint_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            locked_until BIGINT,
            locked_by TEXT,
            last_status INTEGER,
            last_error TEXT,
            created_at BIGINT NOT NULL,
            delivered_at BIGINT
        )
        """,
        "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)",
        "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at)",
    ])
}
