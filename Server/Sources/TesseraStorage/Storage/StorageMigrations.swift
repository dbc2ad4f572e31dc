/// The tables of Storage/ (shared rate counters), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum StorageMigrations {
    /// Version 1: the shared fixed-window counters of `RateCounters` (`rate_counters`).
    package static let rateCounters = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE rate_counters (
            counter_key TEXT NOT NULL,
            window_start BIGINT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (counter_key, window_start)
        )
        """,
    ])
}
