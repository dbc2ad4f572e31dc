/// The storage every domain works on, opened once: the database and every domain's repository over
/// it (``Repositories``). The audit log queues webhooks as it appends; ``webhookWakeup`` tells this
/// instance's webhook worker.
struct ServerStorage: Sendable {
    let database: any Database
    let repositories: Repositories
    /// The courier's outbox (its repository, with the counts the tests and `/metrics` read).
    let outbox: SQLOutboxRepository
    /// Wakes the webhook worker after the audit log queued a delivery.
    let webhookWakeup: WorkerWakeup

    /// `webhookEndpointCache`: how long, in milliseconds, each client's webhook subscribers are kept (``WebhookSubscriberCache``).
    init(database: any Database, keys: ServerKeys, clock: WallClock, random: RandomSource, webhookEndpointCache: Int64 = 1000) {
        self.database = database
        outbox = SQLOutboxRepository(database: database, key: keys.outboxKey, clock: clock)
        let webhookWakeup = WorkerWakeup()
        self.webhookWakeup = webhookWakeup
        repositories = Repositories.sql(
            database: database, outbox: outbox, push: SQLPushRepository(database: database, key: keys.pushKey, clock: clock, random: random),
            webhooks: SQLWebhookRepository(
                database: database, key: keys.webhookKey, clock: clock, random: random,
                subscriberCache: WebhookSubscriberCache(lifetime: webhookEndpointCache)
            ), clock: clock, random: random,
            webhookWake: { webhookWakeup.wake() }
        )
    }
}
