import AsyncHTTPClient
import Logging

/// The operations layer wired once: the admin token and the console's sign-ins, user and device
/// administration, webhooks, the audit checkpoints, the janitor and the server's metrics. Holds no
/// logic itself.
struct OperationsDomain: Sendable {
    let admin: AdminAuthenticator
    /// The admin console's sign-ins (in this process's memory).
    let consoleSessions: ConsoleSessions
    /// User and device administration.
    let userAdmin: UserAdminService
    /// Sends the webhooks (delivery outbox).
    let webhooks: WebhookService
    /// Signs a checkpoint of the audit log every `audit.checkpointInterval`.
    let auditCheckpoints: AuditCheckpointService
    let janitor: JanitorService
    /// This server's metrics (its own registry; `/metrics` on the metrics listener renders it).
    let metrics: ServerMetrics

    init(
        configuration: ServerConfiguration, storage: ServerStorage, keys: ServerKeys, accounts: AccountsDomain, signIn: SignInDomain,
        webhookHTTPClient: HTTPClient, metrics: ServerMetrics, clock: WallClock, random: RandomSource, logger: Logger
    ) {
        let database = storage.database, stores = storage.repositories
        self.metrics = metrics
        userAdmin = UserAdminService(
            database: database, users: stores.users, devices: stores.devices, audit: stores.audit, clients: accounts.clients,
            nodeSync: signIn.nodeSync, clock: clock, appAttest: signIn.appAttest
        )
        admin = AdminAuthenticator(database: database, hasher: keys.hasher, configuredToken: configuration.adminToken)
        consoleSessions = ConsoleSessions(clock: clock, random: random)
        janitor = JanitorService(database: database, repositories: stores, clock: clock, logger: logger)
        webhooks = WebhookService(
            repository: stores.webhooks, database: database, audit: stores.audit, httpClient: webhookHTTPClient, clock: clock, random: random,
            logger: logger, pollInterval: configuration.webhooksPollInterval, timeout: configuration.webhooksTimeout, metrics: metrics,
            wakeup: storage.webhookWakeup
        )
        var checkpoints = AuditCheckpointService(
            database: database, audit: stores.audit, key: keys.auditKey, clock: clock, interval: configuration.auditCheckpointInterval, logger: logger
        )
        checkpoints.file = configuration.auditCheckpointFile
        auditCheckpoints = checkpoints
    }
}
