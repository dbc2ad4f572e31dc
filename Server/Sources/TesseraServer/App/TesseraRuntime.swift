import AsyncHTTPClient
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import SQLKit
import TesseraCore

/// The assembled server: storage opened and migrated, keys loaded, services wired. One place
/// builds it (``bootstrap(configuration:logger:clock:random:)``); the HTTP application, the CLI's
/// admin commands and the tests all use it.
public final class TesseraRuntime: Sendable {
    public let configuration: ServerConfiguration
    let database: any Database
    public let keys: ServerKeys
    public let clients: ClientService
    public let otp: OTPService
    let courier: CourierService
    /// Wakes devices through APNs and FCM (push outbox).
    let push: PushService
    public let signUp: SignUpService
    public let registration: DeviceRegistrationService
    let nodes: NodeDirectory
    let nodeSync: NodeSyncService
    /// The embedded verifier nodes this process started (child processes; none when `runsNodes` is false).
    public let embeddedNodes: [EmbeddedNode]
    let tokens: ResultTokens
    let auth: AuthDomain
    let totp: TOTPVerifier
    let sessions: SessionService
    let policies: ClientPolicyStore
    let flows: RegistrationFlowService
    let passwordLogin: PasswordLoginService
    let sessionDevices: SessionDeviceService
    let authenticators: AuthenticatorService
    /// Log-in with a registered authenticator (issue 17 item 6).
    let authenticatorLogin: AuthenticatorLoginService
    let outbox: Outbox
    let introspection: Introspection
    /// The OpenID Connect provider and its hosted sign-in page.
    let oidc: OIDCService
    /// User and device administration.
    public let userAdmin: UserAdminService
    /// Every domain's repository, built once from the database (services get theirs from here).
    let repositories: Repositories
    let admin: AdminAuthenticator
    /// The admin console's sign-ins (in this process's memory).
    let consoleSessions: ConsoleSessions
    let janitor: JanitorService
    /// Signs a checkpoint of the audit log every `audit.checkpointInterval`.
    let auditCheckpoints: AuditCheckpointService
    /// Sends the webhooks (delivery outbox).
    let webhooks: WebhookService
    let logger: Logger
    let clock: WallClock
    /// This server's metrics (its own registry; `/metrics` on the metrics listener renders it).
    public let metrics: ServerMetrics
    private let httpClient: HTTPClient
    /// HTTP/2 to the push providers (with `push.caFile` among its trust roots when set).
    private let pushHTTPClient: HTTPClient
    /// HTTP/1.1 and HTTP/2 to webhook receivers; redirects are not followed.
    private let webhookHTTPClient: HTTPClient

    /// What first start created and must be shown once (admin token, demo client).
    public let firstStart: FirstStart?

    public struct FirstStart: Sendable {
        public var adminToken: String?
        public var demoClient: ClientWithSecret?
    }

    init(
        configuration: ServerConfiguration, database: any Database, keys: ServerKeys, clock: WallClock, random: RandomSource,
        logger: Logger, firstStartAdminToken: String?, httpClient: HTTPClient, pushHTTPClient: HTTPClient, runsNodes: Bool,
        embeddedNodes: [EmbeddedNode]
    ) async throws {
        self.configuration = configuration
        self.database = database
        self.keys = keys
        self.logger = logger
        self.clock = clock
        self.httpClient = httpClient
        self.pushHTTPClient = pushHTTPClient
        let hasher = keys.hasher
        let metrics = ServerMetrics()
        self.metrics = metrics
        // The composition root: the repositories are built once here, and every service gets the ones it needs.
        outbox = Outbox(database: database, key: keys.outboxKey, clock: clock)
        let pushRepository = SQLPushRepository(database: database, key: keys.pushKey, clock: clock, random: random)
        let webhookWakeup = WorkerWakeup()
        let webhookRepository = SQLWebhookRepository(database: database, key: keys.webhookKey, clock: clock, random: random)
        let stores = Repositories.sql(
            database: database, outbox: outbox, push: pushRepository, webhooks: webhookRepository, clock: clock, random: random,
            webhookWake: { webhookWakeup.wake() }
        )
        repositories = stores
        clients = ClientService(repository: stores.clients, hasher: hasher, random: random, clock: clock)
        courier = CourierService(
            outbox: stores.outbox, senders: Self.messageSenders(configuration, httpClient: httpClient, logger: logger), logger: logger,
            pollInterval: configuration.courierPollInterval, metrics: metrics
        )
        otp = OTPService(
            database: database, repository: stores.otp, audit: stores.audit, outbox: stores.outbox, courier: courier, hasher: hasher, random: random, clock: clock,
            settings: configuration.otp, templates: configuration.templates, logger: logger
        )
        let pushDevices = SQLDeviceRepository(database: database)
        push = PushService(
            repository: stores.push, devices: pushDevices, apns: APNsClient(httpClient: pushHTTPClient, clock: clock),
            fcm: FCMClient(httpClient: pushHTTPClient, clock: clock), unifiedPush: UnifiedPushClient(httpClient: pushHTTPClient, clock: clock),
            clock: clock, logger: logger, pollInterval: configuration.courierPollInterval, metrics: metrics
        )
        nodes = NodeDirectory(
            repository: stores.nodes, httpClient: httpClient, tlsConfiguration: configuration.nodeTLSConfiguration,
            signingKey: keys.nodeControlKey, timeout: configuration.nodeTimeout, clock: clock
        )
        if runsNodes {
            try await nodes.registerEmbedded(embeddedNodes)
        } else {
            try await nodes.reload()
        }
        self.embeddedNodes = embeddedNodes
        nodeSync = NodeSyncService(repository: stores.nodes, devices: stores.devices, directory: nodes, clock: clock, logger: logger)
        sessions = SessionService(
            database: database, repository: stores.sessions, users: stores.users, audit: stores.audit, hasher: hasher, random: random, clock: clock,
            lifetime: configuration.sessionLifetime, idleTimeout: configuration.sessionIdleTimeout,
            pendingLifetime: configuration.sessionPendingLifetime
        )
        policies = ClientPolicyStore(database: database, clock: clock, defaultDevicesPerUser: configuration.maxDevicesPerUser)
        let issuer = DeviceIssuer(devices: stores.devices, sessions: sessions, totpKey: keys.totpKey, random: random)
        signUp = SignUpService(
            database: database, users: stores.users, audit: stores.audit, issuer: issuer, otp: otp, policies: policies, random: random, clock: clock,
            nodeSync: nodeSync
        )
        registration = DeviceRegistrationService(
            database: database, users: stores.users, audit: stores.audit, issuer: issuer, otp: otp, clock: clock, policies: policies,
            identityChecksPerHour: configuration.identityChecksPerHour, nodeSync: nodeSync
        )
        let passwords = PasswordHasher(pepper: hasher, random: random, logN: configuration.passwordScryptLogN)
        flows = RegistrationFlowService(
            database: database, repository: stores.flows, users: stores.users, audit: stores.audit, otp: otp, sessions: sessions, passwords: passwords,
            policies: policies, random: random, clock: clock, lifetime: configuration.flowLifetime,
            perIPHourlyLimit: configuration.flowPerIPHourlyLimit
        )
        passwordLogin = PasswordLoginService(
            database: database, users: stores.users, audit: stores.audit, sessions: sessions, passwords: passwords, clock: clock,
            maxFailures: configuration.passwordMaxFailures, lockout: configuration.passwordLockout,
            perIPHourlyLimit: configuration.passwordPerIPHourlyLimit
        )
        sessionDevices = SessionDeviceService(
            database: database, issuer: issuer, audit: stores.audit, sessions: sessions, policies: policies, clock: clock, nodeSync: nodeSync
        )
        authenticators = AuthenticatorService(
            database: database, repository: stores.authenticators, devices: stores.devices, policies: policies, random: random, clock: clock
        )
        tokens = ResultTokens(
            database: database, sealKey: keys.tokenSealKey,
            issuer: configuration.issuer ?? "\(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(configuration.port)",
            lifetime: configuration.resultTokenLifetime, clock: clock
        )
        try await tokens.load()
        authenticatorLogin = AuthenticatorLoginService(
            database: database, repository: stores.authenticators, devices: stores.devices, lookup: SQLDeviceRepository(database: database),
            tokens: tokens, audit: stores.audit, random: random, clock: clock
        )
        auth = AuthDomain(
            database: database, devices: SQLDeviceRepository(database: database), nodes: nodes, tokens: tokens, sealKey: keys.tokenSealKey,
            random: random, clock: clock,
            settings: .init(
                nodesPerAuthentication: configuration.nodesPerAuthentication, quorum: configuration.nodeQuorum,
                nodeTimeout: configuration.nodeTimeout, nodeSpareAfter: configuration.nodeSpareAfter, channelLifetime: configuration.channelLifetime
            ),
            logger: logger, push: PushScheduler(repository: stores.push, devices: pushDevices, service: push), audit: stores.audit, metrics: metrics
        )
        totp = TOTPVerifier(
            database: database, devices: stores.devices, users: stores.users, clients: stores.clients, audit: stores.audit, totpKey: keys.totpKey, clock: clock,
            maxFailures: configuration.totpMaxFailures
        )
        introspection = Introspection(
            database: database, devices: stores.devices, sessions: stores.sessions, tokens: tokens, hasher: hasher, clock: clock,
            sessionIdleTimeout: configuration.sessionIdleTimeout
        )
        userAdmin = UserAdminService(
            database: database, users: stores.users, devices: stores.devices, audit: stores.audit, clients: clients, nodeSync: nodeSync, clock: clock
        )
        oidc = OIDCService(
            repository: stores.oidc, database: database, clients: clients, users: stores.users, relyingParty: auth.relyingParty, relay: auth.relay, tokens: tokens,
            hasher: hasher, random: random, clock: clock, channelLifetime: configuration.channelLifetime
        )
        admin = AdminAuthenticator(database: database, hasher: hasher, configuredToken: configuration.adminToken)
        consoleSessions = ConsoleSessions(clock: clock, random: random)
        janitor = JanitorService(database: database, repositories: stores, clock: clock, logger: logger)
        var webhookHTTP = Self.untracedHTTPConfiguration()
        webhookHTTP.redirectConfiguration = .disallow
        webhookHTTPClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: webhookHTTP)
        webhooks = WebhookService(
            repository: stores.webhooks, database: database, audit: stores.audit, httpClient: webhookHTTPClient, clock: clock, random: random,
            logger: logger, pollInterval: configuration.webhooksPollInterval, timeout: configuration.webhooksTimeout, metrics: metrics,
            wakeup: webhookWakeup
        )
        auditCheckpoints = AuditCheckpointService(
            database: database, audit: stores.audit, key: keys.auditKey, clock: clock, interval: configuration.auditCheckpointInterval, logger: logger
        )

        var demo: ClientWithSecret?
        if firstStartAdminToken != nil, configuration.createDemoClient {
            demo = try await clients.create(name: "Demo app", bundleIds: ["dev.tessera.demo"])
        }
        firstStart = firstStartAdminToken == nil ? nil : FirstStart(adminToken: firstStartAdminToken, demoClient: demo)
    }

    /// The message senders the configuration asks for (file outbox, SMTP, HTTP SMS gateway).
    private static func messageSenders(
        _ configuration: ServerConfiguration, httpClient: HTTPClient, logger: Logger
    ) -> [OTPChannel: any MessageSender] {
        var senders: [OTPChannel: any MessageSender] = [:]
        let fileSender = FileOutboxSender(path: configuration.fileOutboxPath)
        switch configuration.emailDelivery {
        case .file: senders[.email] = fileSender
        case .smtp:
            if let smtp = configuration.smtp { senders[.email] = SMTPSender(client: SMTPClient(settings: smtp, logger: logger)) }
        }
        switch configuration.smsDelivery {
        case .file: senders[.sms] = fileSender
        case .http:
            if let sms = configuration.sms { senders[.sms] = HTTPSMSSender(settings: sms, httpClient: httpClient) }
        case .none: break
        }
        return senders
    }

    /// An HTTP client configuration without tracing. async-http-client takes the process's tracer when none is
    /// given, and that is a no-op tracer when nothing bootstrapped one (Tessera does not): each request then
    /// still opened a span and parsed its URL again for the span's attributes, 1 % of the server's CPU during
    /// login ceremonies (three node calls each).
    static func untracedHTTPConfiguration() -> HTTPClient.Configuration {
        var http = HTTPClient.Configuration()
        http.tracing.tracer = nil
        return http
    }

    /// HTTP/2 over TLS to APNs and FCM, trusting `push.caFile` too when it is set. Redirects are not
    /// followed: a push goes to the provider's or the allowed UnifiedPush endpoint's address only.
    private static func pushHTTPConfiguration(_ configuration: ServerConfiguration) -> HTTPClient.Configuration {
        var http = untracedHTTPConfiguration()
        http.httpVersion = .automatic
        http.redirectConfiguration = .disallow
        if let file = configuration.pushCAFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(file)]
            http.tlsConfiguration = tls
        }
        return http
    }

    /// Opens storage, runs migrations, loads or creates the server keys and, on first start, the
    /// admin token and demo client.
    /// - Parameters:
    ///   - runsNodes: Whether this process runs the embedded verifier nodes (`serve`: yes;
    ///     the admin CLI: no, so it neither opens their registries nor changes their registration).
    ///   - createsDeployment: Whether a missing deployment (data directory, master key, database) is
    ///     created (`serve`), or refused with ``ConfigurationError`` before anything is written (the
    ///     admin CLI, which must only open an existing one).
    ///   - nodeLauncher: Starts the ``ServerConfiguration/embeddedNodes`` embedded nodes (`serve`:
    ///     `tessera node` child processes). Needed when `runsNodes` and there are embedded nodes.
    public static func bootstrap(
        configuration: ServerConfiguration, logger: Logger, clock: WallClock = .system, random: RandomSource = .system,
        runsNodes: Bool = true, createsDeployment: Bool = true, nodeLauncher: (any EmbeddedNodeLauncher)? = nil
    ) async throws -> TesseraRuntime {
        guard createsDeployment else {
            try checkDeploymentFiles(configuration)
            return try await openDeployment(
                configuration: configuration, logger: logger, clock: clock, random: random, runsNodes: runsNodes, createsDeployment: false,
                nodeLauncher: nodeLauncher
            )
        }
        try FileManager.default.createDirectory(
            atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        return try await StartupLock.withLock(directory: configuration.dataDirectory) {
            try await openDeployment(
                configuration: configuration, logger: logger, clock: clock, random: random, runsNodes: runsNodes, createsDeployment: true,
                nodeLauncher: nodeLauncher
            )
        }
    }

    /// Opens the database named by the configuration (checking, unless it may create one, that it
    /// holds a deployment) and bootstraps on it.
    private static func openDeployment(
        configuration: ServerConfiguration, logger: Logger, clock: WallClock, random: RandomSource, runsNodes: Bool, createsDeployment: Bool,
        nodeLauncher: (any EmbeddedNodeLauncher)?
    ) async throws -> TesseraRuntime {
        let database = try await DeploymentStorage.openDatabase(configuration: configuration, logger: logger)
        if !createsDeployment {
            do {
                try await checkDeploymentDatabase(database, configuration: configuration)
            } catch {
                await database.close()
                throw error
            }
        }
        return try await bootstrap(
            configuration: configuration, database: database, logger: logger, clock: clock, random: random, runsNodes: runsNodes,
            createsDeployment: createsDeployment, nodeLauncher: nodeLauncher
        )
    }

    /// The files an existing deployment has: the master key (unless configured) and, without a
    /// database URL, the SQLite file.
    static func checkDeploymentFiles(_ configuration: ServerConfiguration) throws {
        let hint = "start `tessera serve` with the same --data-dir / --database-url first, or give the right ones"
        if configuration.databaseURL == nil, !FileManager.default.fileExists(atPath: configuration.sqlitePath) {
            throw ConfigurationError("no Tessera deployment in \(configuration.dataDirectory) (no \(configuration.sqlitePath)): \(hint)")
        }
        let keyPath = (configuration.dataDirectory as NSString).appendingPathComponent("master.key")
        if configuration.masterKey == nil, !FileManager.default.fileExists(atPath: keyPath) {
            throw ConfigurationError("no master key for the deployment (no \(keyPath) and no TESSERA_MASTER_KEY): \(hint)")
        }
    }

    /// A deployment's database holds its sealed server secrets.
    static func checkDeploymentDatabase(_ database: any Database, configuration: ServerConfiguration) async throws {
        let count = try? await ServerKeys.storedSecretCount(database: database)
        guard let count, count > 0 else {
            let place = configuration.databaseURL == nil ? configuration.sqlitePath : "the database at the database URL"
            throw ConfigurationError(
                "no Tessera deployment in \(place) (no server secrets): start `tessera serve` with the same --data-dir / --database-url first"
            )
        }
    }

    /// Same, on an already opened database (tests use in-memory SQLite or a test PostgreSQL).
    public static func bootstrap(
        configuration: ServerConfiguration, database: any Database, logger: Logger, clock: WallClock = .system,
        random: RandomSource = .system, runsNodes: Bool = true, createsDeployment: Bool = true,
        nodeLauncher: (any EmbeddedNodeLauncher)? = nil
    ) async throws -> TesseraRuntime {
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: untracedHTTPConfiguration())
        let pushHTTPClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pushHTTPConfiguration(configuration))
        var embedded: [EmbeddedNode] = []
        do {
            if createsDeployment {
                try FileManager.default.createDirectory(
                    atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
                )
            }
            let applied = try await Migrator.migrate(database)
            if !applied.isEmpty { logger.info("migrations applied", metadata: ["versions": .string(applied.map(String.init).joined(separator: ","))]) }
            let masterKey = try await ServerKeys.masterKey(
                configured: configuration.masterKey, dataDirectory: configuration.dataDirectory, database: database, random: random,
                logger: logger
            )
            let keys = try await ServerKeys.loadOrCreate(database: database, masterKey: masterKey, random: random, clock: clock)
            let adminToken = try await AdminAuthenticator.createTokenIfMissing(
                database: database, hasher: keys.hasher, random: random, configured: configuration.adminToken
            )
            if runsNodes {
                embedded = try await launchEmbeddedNodes(configuration: configuration, keys: keys, launcher: nodeLauncher, logger: logger)
            }
            return try await TesseraRuntime(
                configuration: configuration, database: database, keys: keys, clock: clock, random: random, logger: logger,
                firstStartAdminToken: adminToken, httpClient: httpClient, pushHTTPClient: pushHTTPClient, runsNodes: runsNodes, embeddedNodes: embedded
            )
        } catch {
            for node in embedded { await node.stop() }
            try? await httpClient.shutdown()
            try? await pushHTTPClient.shutdown()
            await database.close()
            if let postgres = database as? PostgresDatabase, error is PSQLError {
                throw ConfigurationError("start failed on PostgreSQL at \(postgres.location): \(PostgresDatabase.describe(error))")
            }
            throw error
        }
    }

    /// Closes connections. Call after the application stopped.
    public func shutdown() async {
        await nodes.stopHeartbeat()
        for node in embeddedNodes { await node.stop() }
        try? await httpClient.shutdown()
        try? await pushHTTPClient.shutdown()
        try? await webhookHTTPClient.shutdown()
        await database.close()
    }
}

extension TesseraRuntime {
    /// Starts the configured embedded nodes with `launcher`, each in its own directory under
    /// ``ServerConfiguration/embeddedNodesDirectory`` (outside the data directory: the server never
    /// reads a node's key). A node directory left by an older version in `<dataDir>/nodes/` is moved
    /// there first, so the node keeps its key and registry.
    static func launchEmbeddedNodes(
        configuration: ServerConfiguration, keys: ServerKeys, launcher: (any EmbeddedNodeLauncher)?, logger: Logger
    ) async throws -> [EmbeddedNode] {
        guard configuration.embeddedNodes > 0 else { return [] }
        guard let launcher else {
            throw ConfigurationError("nodes.embedded: this process cannot start embedded verifier nodes; set nodes.embedded to 0 and register `tessera node` processes")
        }
        let files = FileManager.default
        let base = configuration.embeddedNodesDirectory
        try files.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let serverKey = keys.nodeControlKey.publicKey.x963Representation.base64EncodedString()
        // Moved first (file operations), then started together: each start waits for its node's
        // ready line, and one after the other they tripled the time to ready.
        var requests: [EmbeddedNodeRequest] = []
        for index in 1...configuration.embeddedNodes {
            let directory = (base as NSString).appendingPathComponent("embedded-\(index)")
            let old = (configuration.dataDirectory as NSString).appendingPathComponent("nodes/embedded-\(index)")
            if files.fileExists(atPath: old), !files.fileExists(atPath: directory) {
                try files.moveItem(atPath: old, toPath: directory)
                logger.notice("embedded node moved out of the data directory", metadata: ["from": .string(old), "to": .string(directory)])
            }
            requests.append(EmbeddedNodeRequest(index: index, directory: directory, serverKey: serverKey))
        }
        let outcomes = await withTaskGroup(of: (Int, Result<EmbeddedNode, any Error>).self) { group in
            for request in requests {
                group.addTask {
                    do { return (request.index, .success(try await launcher.launch(request))) } catch { return (request.index, .failure(error)) }
                }
            }
            var outcomes: [(Int, Result<EmbeddedNode, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
        }
        var started: [EmbeddedNode] = []
        var firstFailure: (any Error)?
        for outcome in outcomes {
            switch outcome {
            case .success(let node): started.append(node)
            case .failure(let error): firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure {
            for node in started { await node.stop() }
            throw firstFailure
        }
        return started
    }

    /// Verifier-node management (admin).
    public var nodeAdmin: NodeAdminService { NodeAdminService(repository: repositories.nodes, directory: nodes, clock: clock) }

    /// Clients' webhook endpoints and deliveries (admin).
    public var webhookAdmin: WebhookAdminService {
        WebhookAdminService(
            repository: repositories.webhooks, clients: clients, clock: clock, random: webhooks.queue.random,
            requireHTTPS: configuration.production && !configuration.webhooksAllowHttp, wake: { [webhooks] in webhooks.wake() }
        )
    }

    /// Clients' push settings (admin).
    public var pushAdmin: PushAdminService { PushAdminService(repository: repositories.push, clients: clients) }

    /// Clears a user's TOTP failure count.
    public func resetTOTP(clientKey: String, userKey: String) async throws { try await totp.reset(clientKey: clientKey, userKey: userKey) }
}
