/// The tables of Passkeys/ (WebAuthn credentials, their owners' user handles and the ceremonies'
/// challenges), as this domain's shares of the schema versions.
/// `Migrator.all` (Storage/Migrations.swift) orders every domain's parts into the versions; a released part
/// never changes (databases have applied it): a change is a new part in a new version.
package enum PasskeysMigrations {
    /// Version 16: each user's opaque WebAuthn user handle per client (`passkey_users`): 32 random
    /// bytes, never the e-mail or the user key.
    package static let users = MigrationPart(version: 16, statements: [
        """
        CREATE TABLE passkey_users (
            client_id TEXT NOT NULL REFERENCES clients(id),
            user_id TEXT NOT NULL REFERENCES users(id),
            user_handle TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (client_id, user_id)
        )
        """,
        "CREATE UNIQUE INDEX passkey_users_handle ON passkey_users (client_id, user_handle)",
    ])

    /// Version 16: registered passkeys (`passkey_credentials`); a credential ID is unique per client.
    package static let credentials = MigrationPart(version: 16, statements: [
        """
        CREATE TABLE passkey_credentials (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            user_id TEXT NOT NULL REFERENCES users(id),
            credential_id TEXT NOT NULL,
            user_handle TEXT NOT NULL,
            public_key TEXT NOT NULL,
            algorithm INTEGER NOT NULL,
            sign_count BIGINT NOT NULL,
            aaguid TEXT NOT NULL,
            backup_eligible INTEGER NOT NULL,
            backed_up INTEGER NOT NULL,
            attestation_format TEXT NOT NULL,
            attestation_type TEXT NOT NULL,
            transports TEXT NOT NULL,
            name TEXT NOT NULL,
            status TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            last_used_at BIGINT,
            flagged_at BIGINT,
            revoked_at BIGINT
        )
        """,
        "CREATE UNIQUE INDEX passkey_credentials_credential ON passkey_credentials (client_id, credential_id)",
        "CREATE INDEX passkey_credentials_user ON passkey_credentials (user_id, created_at)",
    ])

    /// Version 16: the single-use challenges of registration and authentication ceremonies
    /// (`passkey_challenges`), each bound to what started it (a browser's pending sign-in, a device).
    package static let challenges = MigrationPart(version: 16, statements: [
        """
        CREATE TABLE passkey_challenges (
            id TEXT PRIMARY KEY,
            client_id TEXT NOT NULL REFERENCES clients(id),
            ceremony TEXT NOT NULL,
            user_id TEXT,
            binding TEXT NOT NULL,
            challenge TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            used_at BIGINT
        )
        """,
        "CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at)",
    ])

    /// Version 17: each node's signed receipt for the state of each passkey it was sent (`passkey_node_receipts`):
    /// what is missing is what the sync sends (issue 38, quorum-verified passkeys).
    package static let nodeReceipts = MigrationPart(version: 17, statements: [
        """
        CREATE TABLE passkey_node_receipts (
            node_id TEXT NOT NULL,
            passkey_id TEXT NOT NULL REFERENCES passkey_credentials(id),
            status TEXT NOT NULL,
            keys_digest TEXT NOT NULL,
            signed_at BIGINT NOT NULL,
            signature TEXT NOT NULL,
            received_at BIGINT NOT NULL,
            PRIMARY KEY (node_id, passkey_id)
        )
        """,
    ])

    /// Version 18: per client, the apps that may use the server's passkeys (`passkey_app_links`): Apple app IDs
    /// and Android packages with their certificate fingerprints, as JSON arrays; served in
    /// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`.
    package static let appLinks = MigrationPart(version: 18, statements: [
        """
        CREATE TABLE passkey_app_links (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            apple_app_ids TEXT NOT NULL,
            android_apps TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])

    /// Version 18: per client, which authenticators may register passkeys (`passkey_attestation_settings`): whether
    /// attestation is required, the trust roots (PEM, a JSON array) and the allowed AAGUIDs (a JSON array).
    package static let attestationSettings = MigrationPart(version: 18, statements: [
        """
        CREATE TABLE passkey_attestation_settings (
            client_id TEXT PRIMARY KEY REFERENCES clients(id),
            attestation TEXT NOT NULL,
            trust_roots TEXT NOT NULL,
            allowed_aaguids TEXT NOT NULL,
            updated_at BIGINT NOT NULL
        )
        """,
    ])
}
