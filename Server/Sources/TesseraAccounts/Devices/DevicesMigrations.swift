/// The tables of Devices/ (devices), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum DevicesMigrations {
    /// Version 3: the enrolled devices (`devices`), after `users`, which they reference.
    package static let devices = MigrationPart(version: 3, statements: [
        """
        CREATE TABLE devices (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id),
            client_id TEXT NOT NULL REFERENCES clients(id),
            device_key TEXT NOT NULL,
            uv_key TEXT NOT NULL,
            os TEXT NOT NULL,
            app_version TEXT NOT NULL,
            push_token TEXT NOT NULL,
            totp_secret_sealed TEXT NOT NULL,
            status TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            revoked_at BIGINT
        )
        """,
        "CREATE INDEX devices_user ON devices (user_id)",
    ])

    /// Version 4: which push provider a device's token belongs to.
    package static let pushPlatform = MigrationPart(version: 4, statements: [
        // Which provider a device's push token belongs to ('apns', 'fcm'; '' when the app did not say).
        "ALTER TABLE devices ADD COLUMN push_platform TEXT NOT NULL DEFAULT ''",
    ])

    /// Version 5: a name the user gives a device.
    package static let names = MigrationPart(version: 5, statements: [
        "ALTER TABLE devices ADD COLUMN name TEXT",
    ])

    /// Version 15: when a device's push token was last set or cleared, and whether the provider cleared it.
    package static let pushState = MigrationPart(version: 15, statements: [
        "ALTER TABLE devices ADD COLUMN push_changed_at BIGINT",
        "ALTER TABLE devices ADD COLUMN push_cleared_at BIGINT",
    ])
}
