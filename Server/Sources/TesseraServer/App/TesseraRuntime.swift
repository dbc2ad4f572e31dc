import Logging

/// The assembled server: storage opened and migrated, keys loaded, and the three layers wired in
/// order (accounts, sign-in, operations), each by its own entry point. One place builds it
/// (``bootstrap(configuration:logger:clock:random:runsNodes:createsDeployment:nodeLauncher:)``); the
/// HTTP application, the CLI's admin commands and the tests all use it.
public final class TesseraRuntime: Sendable {
    public let configuration: ServerConfiguration
    public let keys: ServerKeys
    /// The database and every domain's repository over it.
    let storage: ServerStorage
    /// Clients, codes and the courier, sign-up, registration, flows, sessions.
    let accounts: AccountsDomain
    /// Nodes, authentication, tokens, push, TOTP, introspection, authenticators, OpenID Connect.
    let signIn: SignInDomain
    /// Administration, console, webhooks, audit checkpoints, janitor, metrics.
    let operations: OperationsDomain
    /// The embedded verifier nodes this process started (child processes; none when `runsNodes` is false).
    public let embeddedNodes: [EmbeddedNode]
    /// What first start created and must be shown once (admin token, demo client).
    public let firstStart: FirstStart?
    let http: OutboundHTTPClients
    let logger: Logger
    let clock: WallClock

    /// What first start created: the admin token and, when configured, the demo client.
    public struct FirstStart: Sendable {
        public var adminToken: String?
        public var demoClient: ClientWithSecret?
    }

    init(
        configuration: ServerConfiguration, database: any Database, keys: ServerKeys, clock: WallClock, random: RandomSource,
        logger: Logger, firstStartAdminToken: String?, http: OutboundHTTPClients, runsNodes: Bool, embeddedNodes: [EmbeddedNode]
    ) async throws {
        self.configuration = configuration
        self.keys = keys
        self.logger = logger
        self.clock = clock
        self.http = http
        self.embeddedNodes = embeddedNodes
        let metrics = ServerMetrics()
        let storage = ServerStorage(
            database: database, keys: keys, clock: clock, random: random, webhookEndpointCache: configuration.webhooksEndpointCache.millis
        )
        self.storage = storage
        // The nodes first: the accounts layer tells their sync about device changes.
        let nodes = SignInDomain.nodes(configuration: configuration, storage: storage, keys: keys, httpClient: http.general, clock: clock, logger: logger)
        if runsNodes {
            try await nodes.0.registerEmbedded(embeddedNodes)
        } else {
            try await nodes.0.reload()
        }
        let appAttest = try SignInDomain.appAttest(configuration: configuration, storage: storage, clock: clock, random: random)
        accounts = AccountsDomain(
            configuration: configuration, storage: storage, keys: keys, deviceChanges: nodes.1,
            deviceAttestation: AppAttestEnrolmentCheck(service: appAttest.0, settings: appAttest.1), httpClient: http.general, metrics: metrics,
            clock: clock, random: random, logger: logger
        )
        signIn = try await SignInDomain(
            configuration: configuration, storage: storage, keys: keys, accounts: accounts, nodes: nodes, appAttest: appAttest, pushHTTPClient: http.push,
            logoutHTTPClient: http.webhooks,
            metrics: metrics, clock: clock, random: random, logger: logger
        )
        operations = OperationsDomain(
            configuration: configuration, storage: storage, keys: keys, accounts: accounts, signIn: signIn, webhookHTTPClient: http.webhooks,
            metrics: metrics, clock: clock, random: random, logger: logger
        )
        var demo: ClientWithSecret?
        if firstStartAdminToken != nil, configuration.createDemoClient {
            demo = try await accounts.clients.create(name: "Demo app", bundleIds: ["dev.tessera.demo"])
        }
        firstStart = firstStartAdminToken == nil ? nil : FirstStart(adminToken: firstStartAdminToken, demoClient: demo)
    }

    /// Closes connections. Call after the application stopped.
    public func shutdown() async {
        await signIn.nodes.stopHeartbeat()
        for node in embeddedNodes { await node.stop() }
        await http.shutdown()
        await storage.database.close()
    }
}
