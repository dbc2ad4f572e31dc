/// The tables of Proofing/ (one-time codes and dispose tokens), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum ProofingMigrations {
    /// Version 1: the one-time codes sent to a phone or an address (`otp_challenges`).
    package static let otpChallenges = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE otp_challenges (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            channel TEXT NOT NULL,
            target TEXT NOT NULL,
            purpose TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            consumed_at BIGINT
        )
        """,
        "CREATE INDEX otp_challenges_lookup ON otp_challenges (client_id, channel, target, purpose, created_at)",
        "CREATE INDEX otp_challenges_expiry ON otp_challenges (expires_at)",
    ])

    /// Version 1: the earliest time another code may be sent to a target (`otp_send_gates`).
    package static let otpSendGates = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE otp_send_gates (
            gate_key TEXT PRIMARY KEY,
            next_allowed_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 1: the single-use dispose tokens a verified code hands out (`dispose_tokens`).
    package static let disposeTokens = MigrationPart(version: 1, statements: [
        """
        CREATE TABLE dispose_tokens (
            token_hash TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            channel TEXT NOT NULL,
            target TEXT NOT NULL,
            purpose TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            consumed_at BIGINT
        )
        """,
    ])
}
