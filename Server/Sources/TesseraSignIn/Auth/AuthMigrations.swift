/// The tables of Auth/ (sign-in channels and token signing keys), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum AuthMigrations {
    /// Version 24: how many of the nodes that made a channel's quorum vouched that they verified the device's App
    /// Attest attestation themselves (`auth_channels.app_attest_nodes`; NULL before version 24, read as 0).
    package static let appAttestNodes = MigrationPart(version: 24, statements: [
        "ALTER TABLE auth_channels ADD COLUMN app_attest_nodes INTEGER",
    ])

    /// Version 4: the sign-in channels (`auth_channels`).
    package static let authChannels = MigrationPart(version: 4, statements: [
        """
        CREATE TABLE auth_channels (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            user_id TEXT NOT NULL REFERENCES users(id),
            device_id TEXT,
            initiator TEXT NOT NULL,
            challenge TEXT NOT NULL,
            connect_ip TEXT NOT NULL,
            message TEXT NOT NULL,
            outcome TEXT NOT NULL,
            step TEXT NOT NULL,
            code INTEGER,
            nodes TEXT NOT NULL,
            token_sealed TEXT,
            created_at BIGINT NOT NULL,
            verify_started_at BIGINT,
            attested_at BIGINT,
            ended_at BIGINT,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX auth_channels_user ON auth_channels (user_id, created_at)",
        "CREATE INDEX auth_channels_open ON auth_channels (outcome, expires_at)",
    ])

    /// Version 4: the keys that sign result tokens, sealed (`signing_keys`).
    package static let signingKeys = MigrationPart(version: 4, statements: [
        """
        CREATE TABLE signing_keys (
            kid TEXT PRIMARY KEY,
            sealed TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            retired_at BIGINT
        )
        """,
    ])

    /// Version 9: number matching: the number a relying-party request shows and the choices its device offers.
    package static let numberMatching = MigrationPart(version: 9, statements: [
        "ALTER TABLE auth_channels ADD COLUMN match_number TEXT",
        "ALTER TABLE auth_channels ADD COLUMN match_choices TEXT",
    ])

    /// Version 13: each key's algorithm (`ES256`, or `RS256` for the ID tokens of clients that ask for it),
    /// and whether it is the upcoming key: published, signing nothing until a rotation puts it in use.
    package static let signingKeyAlgorithms = MigrationPart(version: 13, statements: [
        "ALTER TABLE signing_keys ADD COLUMN alg TEXT NOT NULL DEFAULT 'ES256'",
        "ALTER TABLE signing_keys ADD COLUMN upcoming INTEGER NOT NULL DEFAULT 0",
    ])
}
