/// The tables of Nodes/ (verifier nodes and what was sent to them), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum NodesMigrations {
    /// Version 4: the verifier nodes (`nodes`).
    package static let nodes = MigrationPart(version: 4, statements: [
        """
        CREATE TABLE nodes (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            url TEXT NOT NULL,
            public_key TEXT NOT NULL,
            kind TEXT NOT NULL,
            enabled INTEGER NOT NULL,
            created_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 4: the devices still to send to each node (`node_sync`).
    package static let nodeSync = MigrationPart(version: 4, statements: [
        """
        CREATE TABLE node_sync (
            node_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            last_error TEXT NOT NULL,
            PRIMARY KEY (node_id, device_id)
        )
        """,
        "CREATE INDEX node_sync_due ON node_sync (next_attempt_at)",
    ])

    /// Version 4: the receipts the nodes signed for what they stored (`node_receipts`).
    package static let nodeReceipts = MigrationPart(version: 4, statements: [
        """
        CREATE TABLE node_receipts (
            node_id TEXT NOT NULL,
            device_id TEXT NOT NULL,
            status TEXT NOT NULL,
            keys_digest TEXT NOT NULL,
            signed_at BIGINT NOT NULL,
            signature TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (node_id, device_id)
        )
        """,
    ])

    /// Version 6: the heartbeat of the instance running embedded nodes.
    package static let heartbeat = MigrationPart(version: 6, statements: [
        // The last sign of life of the instance running an embedded node: another instance on the
        // same database refuses to start its own embedded nodes while this is recent.
        "ALTER TABLE nodes ADD COLUMN heartbeat_at BIGINT",
    ])
}
