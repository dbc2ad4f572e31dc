import TesseraHTTPKit

/// The node's registry schema (`registry.sqlite`), applied by ``NodeService/open(directory:inMemory:clock:logger:)``.
enum NodeMigrations {
    static let all: [Migration] = [
        // request_nonces: the server's signed calls are replay-checked here (same version as on the server, for old registries).
        Migration(version: 2, name: "request-nonces", statements: RequestNonces.tableStatements),
        Migration(version: 100, name: "node-registry", statements: [
            """
            CREATE TABLE node_devices (
                device_id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                device_key TEXT NOT NULL,
                uv_key TEXT NOT NULL,
                status TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
        ]),
        // Passkeys (issue 38): the credentials' public keys, RP IDs and origins, the node's own signature
        // counter, and the challenges of the assertions it attested (a replay is refused).
        Migration(version: 101, name: "node-passkeys", statements: [
            """
            CREATE TABLE node_passkeys (
                passkey_id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                credential_id TEXT NOT NULL,
                public_key TEXT NOT NULL,
                user_handle TEXT NOT NULL,
                rp_id TEXT NOT NULL,
                origins TEXT NOT NULL,
                keys_digest TEXT NOT NULL,
                status TEXT NOT NULL,
                sign_count BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            "CREATE TABLE node_passkey_challenges (challenge TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
            "CREATE INDEX node_passkey_challenges_expiry ON node_passkey_challenges (expires_at)",
        ]),
        // App Attest (issue 41): per device, whether its client requires an attestation the node verified itself, and
        // the outcome of the node's last verification (`verified` or `failed`, why, the key ID, when).
        Migration(version: 102, name: "node-app-attest", statements: [
            """
            CREATE TABLE node_app_attest (
                device_id TEXT PRIMARY KEY,
                required INTEGER NOT NULL,
                status TEXT,
                failure TEXT,
                key_id TEXT,
                verified_at BIGINT
            )
            """,
        ]),
    ]
}
