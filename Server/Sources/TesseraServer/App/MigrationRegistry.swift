import TesseraHTTPKit

/// Runs the versioned migrations at start. Idempotent: each version is applied once, recorded in
/// `schema_migrations`, inside a transaction; PostgreSQL takes an advisory lock so that several
/// instances starting together do not race.
///
/// The registry of the schema: each domain owns its tables and declares their statements in its own
/// folder (`<Domain>/<Domain>Migrations.swift`); this list alone says which parts make each version
/// and in which order (a table after the tables it references). The ownership check
/// (`scripts/check-table-ownership.sh`) takes a table's owner from the folder whose file creates it.
/// Versions already released never change: databases have applied them (the pinned fingerprints in
/// `MigrationRegistryTests` fail if one does).
enum Migrator {
    static let all: [Migration] = [
        Migration(version: 1, name: "foundation", parts: [
            SecurityMigrations.serverSecrets,
            ClientsMigrations.clients,
            ProofingMigrations.otpChallenges,
            ProofingMigrations.otpSendGates,
            StorageMigrations.rateCounters,
            ProofingMigrations.disposeTokens,
            CourierMigrations.outbox,
            AdminMigrations.serverSettings,
        ]),
        // The replay store of signed requests: created and written by TesseraHTTPKit's
        // SignedRequestVerifier alone, which the verifier nodes migrate into their own registries too.
        Migration(version: 2, name: "request-nonces", statements: RequestNonces.tableStatements),
        Migration(version: 3, name: "users-devices-sessions", parts: [
            UsersMigrations.users,
            DevicesMigrations.devices,
            SessionsMigrations.sessions,
        ]),
        Migration(version: 4, name: "nodes-auth-channels-tokens-totp", parts: [
            NodesMigrations.nodes,
            NodesMigrations.nodeSync,
            NodesMigrations.nodeReceipts,
            AuthMigrations.authChannels,
            AuthMigrations.signingKeys,
            RelyingPartyMigrations.totpState,
            DevicesMigrations.pushPlatform,
        ]),
        Migration(version: 5, name: "flows-sessions-passwords-authenticators-policies", parts: [
            FlowsMigrations.registrationFlows,
            UsersMigrations.passwords,
            SessionsMigrations.idsAndLastUse,
            ClientsMigrations.policies,
            AuthenticatorsMigrations.authenticators,
            DevicesMigrations.names,
            AuthenticatorsMigrations.activeTypeIndex,
        ]),
        Migration(version: 6, name: "embedded-node-heartbeat-outbox-claims", parts: [
            NodesMigrations.heartbeat,
            CourierMigrations.claims,
        ]),
        Migration(version: 7, name: "push-outbox-and-client-push-settings", parts: [
            PushMigrations.outbox,
            PushMigrations.clientSettings,
        ]),
        // OpenID Connect (OIDC/): per-client settings, pending authorizations of the hosted sign-in
        // page, authorization codes and access tokens (both stored as keyed hashes).
        Migration(version: 8, name: "oidc", parts: [
            OIDCMigrations.clients,
            OIDCMigrations.requests,
            OIDCMigrations.codes,
            OIDCMigrations.tokens,
        ]),
        // Number matching (Auth/, OIDC/): the number a relying-party request shows and the choices its
        // device offers; the per-client switch of the hosted sign-in page.
        Migration(version: 9, name: "number-matching", parts: [
            AuthMigrations.numberMatching,
            OIDCMigrations.numberMatching,
        ]),
        // Authenticator authentication (Authenticators/, issue 17 item 6): the single-use challenges an
        // authenticator key signs to log in.
        Migration(version: 10, name: "authenticator-challenges", parts: [
            AuthenticatorsMigrations.challenges,
        ]),
        // The audit log (Audit/, issue 15 item 2): hash-chained rows, the chain's head (one row, locked
        // by each append) and the signed checkpoints. docs/audit-log.md describes the chain.
        Migration(version: 11, name: "audit log", parts: [
            AuditMigrations.log,
            AuditMigrations.head,
            AuditMigrations.checkpoints,
        ]),
        // Webhooks (Webhooks/, issue 15 item 3): endpoints per client (secrets sealed, the previous one kept
        // during a rotation overlap) and the delivery outbox (one row per event and endpoint, leased).
        Migration(version: 12, name: "webhooks", parts: [
            WebhooksMigrations.endpoints,
            WebhooksMigrations.deliveries,
        ]),
        // OpenID Connect (OIDC/, issue 37): refresh tokens and the expiry indexes the purge reads; RS256 ID
        // tokens per client, with the signing keys' algorithm (Auth/).
        Migration(version: 13, name: "oidc-refresh-tokens-rs256", parts: [
            OIDCMigrations.refreshTokens,
            AuthMigrations.signingKeyAlgorithms,
            OIDCMigrations.idTokenAlgorithm,
        ]),
        // OpenID Connect (OIDC/, issue 37): sessions at Tessera, the sid of codes and tokens, RP-initiated and
        // back-channel logout (the clients' logout URIs and the logout outbox).
        Migration(version: 14, name: "oidc-sessions-logout", parts: [
            OIDCMigrations.sessions,
        ]),
        // The hosted sign-in page (OIDC/, issue 37): per-client display name, accent colour and logo; the
        // language of a pending authorization. The devices' push state for the admin (Devices/).
        Migration(version: 15, name: "oidc-page-branding-push-state", parts: [
            OIDCMigrations.branding,
            DevicesMigrations.pushState,
        ]),
        // Passkeys (Passkeys/, issue 38): WebAuthn credentials, the users' opaque handles, the ceremonies' challenges.
        Migration(version: 16, name: "passkeys", parts: [
            PasskeysMigrations.users,
            PasskeysMigrations.credentials,
            PasskeysMigrations.challenges,
        ]),
        // Passkeys on the hosted page and at the nodes (OIDC/, Passkeys/, issue 38): the per-client offer to add one
        // after a phone-approved sign-in; the nodes' receipts for each passkey.
        Migration(version: 17, name: "passkeys-offer-node-receipts", parts: [
            OIDCMigrations.offerPasskeys,
            PasskeysMigrations.nodeReceipts,
        ]),
        // Passkeys in the clients' apps and their authenticators (Passkeys/, issue 38): the apps each client associates
        // with the server's domain (apple-app-site-association, assetlinks.json); attestation and allowed models.
        Migration(version: 18, name: "passkey-app-links-attestation", parts: [
            PasskeysMigrations.appLinks,
            PasskeysMigrations.attestationSettings,
        ]),
        // OpenID CIBA (CIBA/, issue 39): the backchannel authentication requests, by the hash of their auth_req_id.
        Migration(version: 19, name: "ciba", parts: [
            CIBAMigrations.requests,
            CIBAMigrations.clients,
            CIBAMigrations.pings,
        ]),
        // Tessera as the authentication channel of other identity servers' CIBA (CIBA/, issue 39); the clients' own
        // keys for private_key_jwt and login_hint_token (OIDC/).
        Migration(version: 20, name: "ciba-channel-client-keys", parts: [
            CIBAMigrations.channelClients,
            CIBAMigrations.outboxKinds,
            CIBAMigrations.userCode,
            OIDCMigrations.clientKeys,
        ]),
        // Issue 40: audit appends on PostgreSQL no longer lock the head row; the sequencer chains them.
        Migration(version: 21, name: "audit-pending", parts: [
            AuditMigrations.pending,
        ]),
        // App Attest (AppAttest/, issue 41): the single-use challenges of attestations and assertions, by their hash;
        // each device's attested key and the counter of its last accepted assertion.
        Migration(version: 22, name: "app-attest", parts: [
            AppAttestMigrations.challenges,
            AppAttestMigrations.keys,
        ]),
        // App Attest settings per client (AppAttest/, issue 41): the policy and the app (team ID, bundle ID, environment).
        Migration(version: 23, name: "app-attest-settings", parts: [
            AppAttestMigrations.settings,
        ]),
        // App Attest at enrolment (AppAttest/, issue 41): the challenges issued before a device exists, bound to its key;
        // each key's attestation object and challenge, which the verifier nodes are sent to verify themselves.
        Migration(version: 24, name: "app-attest-enrolment", parts: [
            AppAttestMigrations.enrolmentChallenges,
            AppAttestMigrations.evidence,
            AppAttestMigrations.assertSignIn,
            AuthMigrations.appAttestNodes,
        ]),
    ]

    /// Applies every migration of ``all`` (or `migrations`) not yet recorded. Returns the versions applied now.
    @discardableResult
    static func migrate(_ database: any Database, migrations: [Migration] = all) async throws -> [Int] {
        try await Migration.apply(migrations, to: database)
    }
}
