/// The tables of AppAttest/ (a device's App Attest key and the challenges it signs), as this domain's share of
/// the schema versions. `Migrator.all` orders every domain's parts into the versions; a released part never
/// changes (databases have applied it): a change is a new part in a new version.
package enum AppAttestMigrations {
    /// Version 22: the single-use challenges of App Attest attestations and assertions (`app_attest_challenges`),
    /// by the SHA-256 of the challenge (hex): the challenge itself is never stored. `used_at` is set by the one
    /// use that consumes it.
    package static let challenges = MigrationPart(version: 22, statements: [
        """
        CREATE TABLE app_attest_challenges (
            id TEXT PRIMARY KEY,
            device_id TEXT NOT NULL REFERENCES devices(id),
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_at BIGINT
        )
        """,
        "CREATE INDEX app_attest_challenges_expiry ON app_attest_challenges (expires_at)",
    ])

    /// Version 22: each device's attested App Attest key (`app_attest_keys`): the key ID and public key
    /// (base64url), the counter of its last accepted assertion (0 after the attestation), the environment, Apple's
    /// receipt (base64; not a secret: it is for Apple's fraud metric) and when it was attested.
    package static let keys = MigrationPart(version: 22, statements: [
        """
        CREATE TABLE app_attest_keys (
            device_id TEXT PRIMARY KEY REFERENCES devices(id),
            key_id TEXT NOT NULL UNIQUE,
            public_key TEXT NOT NULL,
            counter BIGINT NOT NULL,
            environment TEXT NOT NULL,
            receipt TEXT NOT NULL,
            attested_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 23: each client's App Attest settings (`app_attest_settings`): the policy (`off`, `reported`,
    /// `required`), the app's team ID and bundle ID (empty when not set) and its environment. A client without a row
    /// has the defaults (off).
    package static let settings = MigrationPart(version: 23, statements: [
        """
        CREATE TABLE app_attest_settings (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            policy TEXT NOT NULL,
            team_id TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 24: the challenges of attestations sent with an enrolment (`app_attest_enrolment_challenges`), issued to
    /// a client before the device exists; the device key they are for is bound into the challenge itself
    /// (``AppAttestDeviceBinding``). By the SHA-256 of the challenge (hex), single use like the device's challenges.
    package static let enrolmentChallenges = MigrationPart(version: 24, statements: [
        """
        CREATE TABLE app_attest_enrolment_challenges (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_at BIGINT
        )
        """,
        "CREATE INDEX app_attest_enrolment_challenges_expiry ON app_attest_enrolment_challenges (expires_at)",
    ])

    /// Version 24: whether each sign-in approval of the client's devices must carry an App Attest assertion
    /// (`app_attest_settings.assert_sign_in`, 0 or 1).
    package static let assertSignIn = MigrationPart(version: 24, statements: [
        "ALTER TABLE app_attest_settings ADD COLUMN assert_sign_in INTEGER NOT NULL DEFAULT 0",
    ])

    /// Version 24: each attested key's evidence for the verifier nodes: the attestation object (base64) and its
    /// challenge (base64url), NULL for keys attested before this version.
    package static let evidence = MigrationPart(version: 24, statements: [
        "ALTER TABLE app_attest_keys ADD COLUMN attestation_object TEXT",
        "ALTER TABLE app_attest_keys ADD COLUMN challenge TEXT",
    ])
}
