/// Every domain's repository, built once from the opened database by the composition root
/// (``TesseraRuntime``) and handed to the services, which see only the protocols.
///
/// Each domain owns its tables: only its repository names them in SQL, and another domain asks it
/// through its protocol (`scripts/check-table-ownership.sh` checks this). A change that must stay
/// atomic across domains (sign-up writes a user, a device, a session and consumes a dispose token)
/// is one `database.transaction { sql in … }` opened by the service, whose handle `sql` it passes to
/// each owner's method (`in sql:`); no repository opens a transaction of its own for such a change.
struct Repositories: Sendable {
    var users: any UserRepository
    var devices: any DeviceRepository
    var sessions: any SessionRepository
    var clients: any ClientRepository
    var otp: any OTPRepository
    var flows: any RegistrationFlowRepository
    var authenticators: any AuthenticatorRepository
    /// Passkeys (WebAuthn credentials), their users' handles and the ceremonies' challenges.
    var passkeys: any PasskeyRepository
    var outbox: any OutboxRepository
    var nodes: any NodeRepository
    var push: any PushRepository
    var oidc: any OIDCRepository
    /// Sessions at Tessera and the back-channel logout outbox (OIDC/).
    var oidcSessions: any OIDCSessionRepository
    /// The hash-chained audit log (appended inside the changes' transactions).
    var audit: any AuditLog
    /// Webhook endpoints and the delivery outbox (the audit log above queues into it).
    var webhooks: any WebhookRepository
    /// The devices' App Attest keys and the challenges they sign (AppAttest/).
    var appAttest: any AppAttestRepository
    /// The clients' App Attest settings (AppAttest/).
    var appAttestSettings: any AppAttestSettingsRepository
    /// The App Attest challenges of enrolments and the evidence kept for the nodes (AppAttest/).
    var appAttestEnrolment: any AppAttestEnrolmentRepository = SQLAppAttestEnrolmentRepository()

    /// The SQL repositories over `database` (SQLite or PostgreSQL), with the courier's `outbox` and the push outbox.
    /// `audit` queues webhooks (``WebhookAuditLog``) and calls `webhookWake` after queueing.
    static func sql(
        database: any Database, outbox: SQLOutboxRepository, push: SQLPushRepository, webhooks: SQLWebhookRepository, clock: WallClock, random: RandomSource,
        webhookWake: @escaping @Sendable () -> Void
    ) -> Repositories {
        let sessions = SQLSessionRepository()
        let users = SQLUserRepository(), clients = SQLClientRepository(database: database)
        let subjects = RepositoryAuditSubjects(clients: clients, users: users)
        return Repositories(
            users: users, devices: SQLDeviceRepository(database: database, sessions: sessions, syncQueue: NodeSyncQueue()), sessions: sessions,
            clients: clients, otp: SQLOTPRepository(), flows: SQLRegistrationFlowRepository(),
            authenticators: SQLAuthenticatorRepository(), passkeys: SQLPasskeyRepository(), outbox: outbox, nodes: SQLNodeRepository(database: database), push: push, oidc: SQLOIDCRepository(database: database),
            oidcSessions: SQLOIDCSessionRepository(database: database, clock: clock, random: random),
            audit: WebhookAuditLog(
                base: SQLAuditRepository(
                    kind: database.kind, clock: clock, appended: AuditAppendSignal(), subjects: subjects, database: database
                ), webhooks: webhooks,
                subjects: subjects, clock: clock, random: random, wake: webhookWake
            ),
            webhooks: webhooks, appAttest: SQLAppAttestRepository(), appAttestSettings: SQLAppAttestSettingsRepository()
        )
    }
}
