/// The tables of Audit/ (audit log), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum AuditMigrations {
    /// Version 11: the hash-chained rows (`audit_log`); docs/audit-log.md describes the chain.
    package static let log = MigrationPart(version: 11, statements: [
        """
        CREATE TABLE audit_log (
            seq BIGINT PRIMARY KEY,
            time BIGINT NOT NULL,
            type TEXT NOT NULL,
            actor TEXT NOT NULL,
            client_id TEXT,
            user_id TEXT,
            device_id TEXT,
            session_id TEXT,
            details TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        )
        """,
        "CREATE INDEX audit_log_type ON audit_log (type, seq)",
        "CREATE INDEX audit_log_time ON audit_log (time)",
    ])

    /// Version 11: the chain's head (`audit_head`): one row, locked by each append.
    package static let head = MigrationPart(version: 11, statements: [
        "CREATE TABLE audit_head (id INTEGER PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL)",
        "INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000')",
    ])

    /// Version 11: the signed checkpoints (`audit_checkpoints`).
    package static let checkpoints = MigrationPart(version: 11, statements: [
        """
        CREATE TABLE audit_checkpoints (
            seq BIGINT NOT NULL,
            hash TEXT NOT NULL,
            time BIGINT NOT NULL,
            key_id TEXT NOT NULL,
            signature TEXT NOT NULL,
            PRIMARY KEY (seq, key_id)
        )
        """,
    ])

    /// Version 21: events appended on PostgreSQL, waiting for the ``AuditSequencer`` to chain them in the
    /// order of their `id` (a PostgreSQL sequence: the order of the appends). Unused on SQLite, whose appends
    /// chain at once (it accepts the type name and never inserts).
    package static let pending = MigrationPart(version: 21, statements: [
        """
        CREATE TABLE audit_pending (
            id BIGSERIAL PRIMARY KEY,
            time BIGINT NOT NULL,
            type TEXT NOT NULL,
            actor TEXT NOT NULL,
            client_id TEXT,
            user_id TEXT,
            device_id TEXT,
            session_id TEXT,
            details TEXT NOT NULL
        )
        """,
    ])
}
