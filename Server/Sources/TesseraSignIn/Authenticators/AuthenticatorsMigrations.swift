/// The tables of Authenticators/ (authenticator keys and their challenges), as this domain's shares of the
/// schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum AuthenticatorsMigrations {
    /// Version 5: the authenticator keys of a device (`authenticators`).
    package static let authenticators = MigrationPart(version: 5, statements: [
        """
        CREATE TABLE authenticators (
            id TEXT PRIMARY KEY,
            device_id TEXT NOT NULL REFERENCES devices(id),
            user_id TEXT NOT NULL REFERENCES users(id),
            aaid TEXT NOT NULL,
            type TEXT NOT NULL,
            public_key TEXT NOT NULL,
            passcode_fallback INTEGER NOT NULL,
            invalidate_on_new_biometrics INTEGER NOT NULL,
            status TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            deleted_at BIGINT
        )
        """,
        "CREATE INDEX authenticators_user ON authenticators (user_id, created_at)",
    ])

    /// Version 5: at most one active authenticator of each type per device.
    package static let activeTypeIndex = MigrationPart(version: 5, statements: [
        "CREATE UNIQUE INDEX authenticators_active_type ON authenticators (device_id, type) WHERE status = 'active'",
    ])

    /// Version 10: the single-use challenges an authenticator key signs to log in (`authenticator_challenges`,
    /// issue 17 item 6).
    package static let challenges = MigrationPart(version: 10, statements: [
        """
        CREATE TABLE authenticator_challenges (
            id TEXT PRIMARY KEY,
            authenticator_id TEXT NOT NULL REFERENCES authenticators(id),
            device_id TEXT NOT NULL,
            challenge TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_at BIGINT
        )
        """,
        "CREATE INDEX authenticator_challenges_expiry ON authenticator_challenges (expires_at)",
    ])
}
