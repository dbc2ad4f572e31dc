import SQLKit
import TesseraHTTPKit

/// Runs the versioned migrations at start. Idempotent: each version is applied once, recorded in
/// `schema_migrations`, inside a transaction; PostgreSQL takes an advisory lock so that several
/// instances starting together do not race.
enum Migrator {
    static let all: [Migration] = [
        Migration(version: 1, name: "foundation", statements: [
            """
            CREATE TABLE server_secrets (
                name TEXT PRIMARY KEY,
                sealed TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE clients (
                id TEXT PRIMARY KEY,
                client_key TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                bundle_ids TEXT NOT NULL,
                secret_hash TEXT NOT NULL,
                enabled INTEGER NOT NULL,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
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
            """
            CREATE TABLE otp_send_gates (
                gate_key TEXT PRIMARY KEY,
                next_allowed_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE rate_counters (
                counter_key TEXT NOT NULL,
                window_start BIGINT NOT NULL,
                count INTEGER NOT NULL,
                PRIMARY KEY (counter_key, window_start)
            )
            """,
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
            """
            CREATE TABLE outbox (
                id TEXT PRIMARY KEY,
                channel TEXT NOT NULL,
                recipient TEXT NOT NULL,
                sealed_payload TEXT,
                status TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                locked_until BIGINT,
                last_error TEXT,
                created_at BIGINT NOT NULL,
                sent_at BIGINT
            )
            """,
            "CREATE INDEX outbox_due ON outbox (status, next_attempt_at)",
            """
            CREATE TABLE server_settings (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            )
            """,
        ]),
        Migration(version: 2, name: "request-nonces", statements: SignedRequestVerifier.nonceTableStatements),
        Migration(version: 3, name: "users-devices-sessions", statements: [
            """
            CREATE TABLE users (
                id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL REFERENCES clients(id),
                user_key TEXT NOT NULL,
                name TEXT NOT NULL,
                email TEXT NOT NULL,
                phone TEXT NOT NULL,
                local_auth_type TEXT NOT NULL,
                agreed_at BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                CONSTRAINT users_user_key_unique UNIQUE (client_id, user_key),
                CONSTRAINT users_email_unique UNIQUE (client_id, email),
                CONSTRAINT users_phone_unique UNIQUE (client_id, phone)
            )
            """,
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
            """
            CREATE TABLE sessions (
                token_hash TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id),
                device_id TEXT REFERENCES devices(id),
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
        ]),
        Migration(version: 4, name: "nodes-auth-channels-tokens-totp", statements: [
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
            """
            CREATE TABLE signing_keys (
                kid TEXT PRIMARY KEY,
                sealed TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                retired_at BIGINT
            )
            """,
            """
            CREATE TABLE totp_state (
                user_id TEXT PRIMARY KEY REFERENCES users(id),
                last_step BIGINT NOT NULL,
                failures INTEGER NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            // Which provider a device's push token belongs to ('apns', 'fcm'; '' when the app did not say).
            "ALTER TABLE devices ADD COLUMN push_platform TEXT NOT NULL DEFAULT ''",
        ]),
        Migration(version: 5, name: "flows-sessions-passwords-authenticators-policies", statements: [
            """
            CREATE TABLE registration_flows (
                id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL REFERENCES clients(id),
                state TEXT NOT NULL,
                phone TEXT,
                dispose_hash TEXT,
                user_id TEXT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX registration_flows_expiry ON registration_flows (expires_at)",
            "ALTER TABLE users ADD COLUMN password_hash TEXT",
            "ALTER TABLE users ADD COLUMN password_failures INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE users ADD COLUMN password_locked_until BIGINT",
            "ALTER TABLE sessions ADD COLUMN id TEXT",
            "ALTER TABLE sessions ADD COLUMN last_used_at BIGINT",
            "UPDATE sessions SET id = 'ses_' || substr(token_hash, 1, 24), last_used_at = created_at",
            "CREATE UNIQUE INDEX sessions_id ON sessions (id)",
            "CREATE INDEX sessions_user ON sessions (user_id, created_at)",
            """
            CREATE TABLE client_policies (
                client_id TEXT PRIMARY KEY REFERENCES clients(id),
                policy TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
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
            "ALTER TABLE devices ADD COLUMN name TEXT",
            "CREATE UNIQUE INDEX authenticators_active_type ON authenticators (device_id, type) WHERE status = 'active'",
        ]),
        Migration(version: 6, name: "embedded-node-heartbeat-outbox-claims", statements: [
            // The last sign of life of the instance running an embedded node: another instance on the
            // same database refuses to start its own embedded nodes while this is recent.
            "ALTER TABLE nodes ADD COLUMN heartbeat_at BIGINT",
            // Who holds an outbox message's lease, so the holder alone renews it.
            "ALTER TABLE outbox ADD COLUMN locked_by TEXT",
        ]),
        Migration(version: 7, name: "push-outbox-and-client-push-settings", statements: [
            // One row per device to wake for a relying-party request, written in the request's
            // transaction; delivered under a lease like the courier's outbox. No personal data.
            """
            CREATE TABLE push_outbox (
                id TEXT PRIMARY KEY,
                channel_id TEXT NOT NULL,
                client_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                expires_at BIGINT NOT NULL,
                status TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                locked_until BIGINT,
                locked_by TEXT,
                last_error TEXT,
                created_at BIGINT NOT NULL,
                sent_at BIGINT
            )
            """,
            "CREATE INDEX push_outbox_due ON push_outbox (status, next_attempt_at)",
            // A client's APNs or FCM settings; the private key is sealed under a key from the master key.
            """
            CREATE TABLE client_push_settings (
                client_id TEXT PRIMARY KEY,
                provider TEXT NOT NULL,
                settings TEXT NOT NULL,
                sealed_secret TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
        ]),
        // OpenID Connect (OIDC/): per-client settings, pending authorizations of the hosted sign-in
        // page, authorization codes and access tokens (both stored as keyed hashes).
        Migration(version: 8, name: "oidc", statements: [
            """
            CREATE TABLE oidc_clients (
                client_id TEXT PRIMARY KEY REFERENCES clients(id),
                redirect_uris TEXT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE oidc_requests (
                id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL REFERENCES clients(id),
                client_key TEXT NOT NULL,
                redirect_uri TEXT NOT NULL,
                state TEXT NOT NULL,
                nonce TEXT NOT NULL,
                code_challenge TEXT NOT NULL,
                scope TEXT NOT NULL,
                csrf_hash TEXT NOT NULL,
                channel_id TEXT,
                identified_at BIGINT,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                completed_at BIGINT
            )
            """,
            "CREATE INDEX oidc_requests_expiry ON oidc_requests (expires_at)",
            """
            CREATE TABLE oidc_codes (
                code_hash TEXT PRIMARY KEY,
                request_id TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES clients(id),
                redirect_uri TEXT NOT NULL,
                code_challenge TEXT NOT NULL,
                nonce TEXT NOT NULL,
                scope TEXT NOT NULL,
                user_key TEXT NOT NULL,
                auth_time BIGINT NOT NULL,
                amr TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT
            )
            """,
            """
            CREATE TABLE oidc_tokens (
                token_hash TEXT PRIMARY KEY,
                code_hash TEXT NOT NULL,
                client_id TEXT NOT NULL REFERENCES clients(id),
                user_key TEXT NOT NULL,
                scope TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
            "CREATE INDEX oidc_tokens_code ON oidc_tokens (code_hash)",
        ]),
        // Number matching (Auth/, OIDC/): the number a relying-party request shows and the choices its
        // device offers; the per-client switch of the hosted sign-in page.
        Migration(version: 9, name: "number-matching", statements: [
            "ALTER TABLE auth_channels ADD COLUMN match_number TEXT",
            "ALTER TABLE auth_channels ADD COLUMN match_choices TEXT",
            "ALTER TABLE oidc_clients ADD COLUMN number_matching INTEGER NOT NULL DEFAULT 0",
        ]),
        // Authenticator authentication (Authenticators/, issue 17 item 6): the single-use challenges an
        // authenticator key signs to log in.
        Migration(version: 10, name: "authenticator-challenges", statements: [
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
        ]),
        // The audit log (Audit/, issue 15 item 2): hash-chained rows, the chain's head (one row, locked
        // by each append) and the signed checkpoints. docs/audit-log.md describes the chain.
        Migration(version: 11, name: "audit log", statements: [
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
            "CREATE TABLE audit_head (id INTEGER PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL)",
            "INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000')",
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
        ]),
        // Webhooks (Webhooks/, issue 15 item 3): endpoints per client (secrets sealed, the previous one kept
        // during a rotation overlap) and the delivery outbox (one row per event and endpoint, leased).
        Migration(version: 12, name: "webhooks", statements: [
            """
            CREATE TABLE webhook_endpoints (
                id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL REFERENCES clients(id),
                url TEXT NOT NULL,
                event_types TEXT NOT NULL,
                sealed_secret TEXT NOT NULL,
                sealed_previous_secret TEXT,
                previous_secret_expires_at BIGINT,
                enabled INTEGER NOT NULL,
                failure_count INTEGER NOT NULL DEFAULT 0,
                disabled_reason TEXT,
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL
            )
            """,
            "CREATE INDEX webhook_endpoints_client ON webhook_endpoints (client_id, enabled)",
            """
            CREATE TABLE webhook_deliveries (
                id TEXT PRIMARY KEY,
                event_id TEXT NOT NULL,
                endpoint_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                payload TEXT NOT NULL,
                status TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                locked_until BIGINT,
                locked_by TEXT,
                last_status INTEGER,
                last_error TEXT,
                created_at BIGINT NOT NULL,
                delivered_at BIGINT
            )
            """,
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)",
            "CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at)",
        ]),
    ]

    /// Applies every migration of ``all`` (or `migrations`) not yet recorded. Returns the versions applied now.
    @discardableResult
    static func migrate(_ database: any Database, migrations: [Migration] = all) async throws -> [Int] {
        try await Migration.apply(migrations, to: database)
    }
}
