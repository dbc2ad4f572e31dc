import Crypto
import Foundation
import AsyncHTTPClient
import Logging

/// The sign-in layer wired once: the verifier nodes and their sync, result tokens, the node-quorum
/// authentication (``AuthDomain``), push wake-ups, TOTP, introspection, authenticators and the
/// OpenID Connect provider. Holds no logic itself.
struct SignInDomain: Sendable {
    let nodes: NodeDirectory
    let nodeSync: NodeSyncService
    let tokens: ResultTokens
    let auth: AuthDomain
    let push: PushService
    let totp: TOTPVerifier
    let introspection: Introspection
    let authenticators: AuthenticatorService
    let authenticatorLogin: AuthenticatorLoginService
    let oidc: OIDCService
    /// Passkeys: WebAuthn registration and sign-in for Tessera's own origin.
    let passkeys: PasskeyService
    /// The apps each client associates with the server's passkeys (the well-known association files).
    let passkeyAppLinks: PasskeyAppLinksService
    /// Each client's rules for new passkeys' authenticators.
    let passkeyAttestation: PasskeyAttestationService
    /// Passkeys made and used in the clients' apps.
    let passkeyApps: PasskeyAppCeremonies
    /// Passkeys at the verifier nodes: their sync, and the quorum that verifies sign-ins where a client requires it.
    let passkeyNodes: PasskeyNodes
    /// OpenID CIBA (poll and ping).
    let ciba: CIBAService
    /// Tessera as the authentication channel of other identity servers' CIBA (Keycloak's HTTP authentication channel).
    let cibaChannel: CIBAChannelService
    /// Sends CIBA ping notifications and the authentication channel's callbacks (the ping outbox).
    let cibaPings: CIBAPingService
    /// Sends back-channel logout tokens to the clients whose sessions ended (logout outbox).
    let logouts: BackchannelLogoutService
    /// App Attest: the devices' challenges, attestations and assertions (Apple's root unless `appAttest.roots` replaces it).
    let appAttest: AppAttestService
    /// The clients' App Attest policies and apps.
    let appAttestSettings: AppAttestSettingsService

    /// App Attest's services, made before the domains: the accounts layer checks attestations at enrolment with them
    /// (``AppAttestEnrolmentCheck``), the sign-in layer serves the device routes (Apple's root unless `appAttest.roots`
    /// replaces it).
    static func appAttest(
        configuration: ServerConfiguration, storage: ServerStorage, clock: WallClock, random: RandomSource
    ) throws -> (AppAttestService, AppAttestSettingsService) {
        let database = storage.database, stores = storage.repositories
        var service = try AppAttestService(
            database: database, repository: stores.appAttest, enrolment: stores.appAttestEnrolment, devices: stores.devices, audit: stores.audit,
            trustedRoots: configuration.appAttestTrustedRoots(), random: random, clock: clock,
            enrolmentChallengesPerHour: configuration.appAttestPerIPHourlyLimit
        )
        service.nodeSync = { deviceId, now, sql in try await SQLNodeRepository.enqueue(deviceId: deviceId, now: now, in: sql) }
        let settings = AppAttestSettingsService(
            database: database, repository: stores.appAttestSettings, clock: clock,
            nodeResync: { clientId, now, sql in try await SQLNodeRepository.enqueueClient(clientId: clientId, now: now, in: sql) }
        )
        return (service, settings)
    }

    /// The nodes come first: accounts tell the node sync about device changes.
    static func nodes(
        configuration: ServerConfiguration, storage: ServerStorage, keys: ServerKeys, httpClient: HTTPClient, clock: WallClock, logger: Logger
    ) -> (NodeDirectory, NodeSyncService) {
        let stores = storage.repositories
        let directory = NodeDirectory(
            repository: stores.nodes, httpClient: httpClient, tlsConfiguration: configuration.nodeTLSConfiguration,
            signingKey: keys.nodeControlKey, timeout: configuration.nodeTimeout, clock: clock
        )
        return (directory, NodeSyncService(
            repository: stores.nodes, devices: stores.devices, directory: directory, clock: clock, logger: logger,
            appAttest: AppAttestNodeEvidence(database: storage.database, settings: stores.appAttestSettings, enrolment: stores.appAttestEnrolment)
        ))
    }

    init(
        configuration: ServerConfiguration, storage: ServerStorage, keys: ServerKeys, accounts: AccountsDomain, nodes: (NodeDirectory, NodeSyncService),
        appAttest: (AppAttestService, AppAttestSettingsService), pushHTTPClient: HTTPClient, logoutHTTPClient: HTTPClient, metrics: ServerMetrics, clock: WallClock, random: RandomSource, logger: Logger
    ) async throws {
        let database = storage.database, stores = storage.repositories
        (self.nodes, nodeSync) = nodes
        let pushDevices = SQLDeviceRepository(database: database)
        push = PushService(
            repository: stores.push, devices: pushDevices, apns: APNsClient(httpClient: pushHTTPClient, clock: clock),
            fcm: FCMClient(httpClient: pushHTTPClient, clock: clock), unifiedPush: UnifiedPushClient(httpClient: pushHTTPClient, clock: clock),
            clock: clock, logger: logger, pollInterval: configuration.courierPollInterval, metrics: metrics
        )
        authenticators = AuthenticatorService(
            database: database, repository: stores.authenticators, devices: stores.devices, policies: accounts.policies, random: random, clock: clock
        )
        let issuer = configuration.issuer ?? "\(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(configuration.port)"
        tokens = ResultTokens(
            database: database, sealKey: keys.tokenSealKey,
            issuer: issuer,
            lifetime: configuration.resultTokenLifetime, clock: clock
        )
        try await tokens.load()
        authenticatorLogin = AuthenticatorLoginService(
            database: database, repository: stores.authenticators, devices: stores.devices, lookup: pushDevices,
            tokens: tokens, audit: stores.audit, random: random, clock: clock
        )
        auth = AuthDomain(
            database: database, devices: pushDevices, nodes: self.nodes, tokens: tokens, sealKey: keys.tokenSealKey,
            random: random, clock: clock,
            settings: .init(
                nodesPerAuthentication: configuration.nodesPerAuthentication, quorum: configuration.nodeQuorum,
                nodeTimeout: configuration.nodeTimeout, nodeSpareAfter: configuration.nodeSpareAfter, channelLifetime: configuration.channelLifetime
            ),
            logger: logger, push: PushScheduler(repository: stores.push, devices: pushDevices, service: push), audit: stores.audit, metrics: metrics,
            appAttest: appAttest.0
        )
        totp = TOTPVerifier(
            database: database, devices: stores.devices, users: stores.users, clients: stores.clients, audit: stores.audit, totpKey: keys.totpKey,
            clock: clock, maxFailures: configuration.totpMaxFailures
        )
        introspection = Introspection(
            database: database, devices: stores.devices, sessions: stores.sessions, tokens: tokens, hasher: keys.hasher, clock: clock,
            sessionIdleTimeout: configuration.sessionIdleTimeout, passkeys: stores.passkeys
        )
        let logouts = BackchannelLogoutService(
            repository: stores.oidcSessions, settings: stores.oidc, tokens: tokens, httpClient: logoutHTTPClient, clock: clock, logger: logger,
            pollInterval: configuration.webhooksPollInterval, timeout: configuration.webhooksTimeout
        )
        self.logouts = logouts
        var passkeySettings = PasskeySettings(issuer: issuer) ?? PasskeySettings(rpId: configuration.host, rpName: "Tessera", origins: [issuer])
        passkeySettings.metadata = try await configuration.passkeyMetadata(now: Date(timeIntervalSince1970: Double(clock.now()) / 1000), logger: logger)
        passkeyNodes = PasskeyNodes(
            database: database, repository: SQLPasskeyNodeRepository(), directory: self.nodes,
            quorum: auth.device.nodeQuorum,
            perSignIn: configuration.nodesPerAuthentication, settings: passkeySettings, clock: clock, logger: logger
        )
        let passkeyAppLinks = PasskeyAppLinksService(database: database, clock: clock)
        let passkeyAttestation = PasskeyAttestationService(database: database, clock: clock)
        self.passkeyAttestation = passkeyAttestation
        self.passkeyAppLinks = passkeyAppLinks
        passkeys = PasskeyService(
            database: database, repository: stores.passkeys, audit: stores.audit, settings: passkeySettings, random: random, clock: clock,
            nodes: passkeyNodes, policies: accounts.policies, appLinks: passkeyAppLinks, attestation: passkeyAttestation
        )
        passkeyApps = PasskeyAppCeremonies(passkeys: passkeys, users: stores.users, tokens: tokens)
        (self.appAttest, appAttestSettings) = appAttest
        oidc = OIDCService(
            repository: stores.oidc, sessions: stores.oidcSessions, logoutQueued: { logouts.wake() }, database: database, clients: accounts.clients, users: stores.users, relyingParty: auth.relyingParty,
            relay: auth.relay, tokens: tokens, hasher: keys.hasher, random: random, clock: clock, channelLifetime: configuration.channelLifetime
        )
        let pingRepository = SQLCIBAPingRepository(database: database, clock: clock)
        // A key of its own for what pings carry, derived from the token seal key.
        let pingKey = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Data("tessera-ciba-ping-v1".utf8), using: keys.tokenSealKey))
        var ciba = CIBAService(oidc: oidc)
        ciba.interval = configuration.cibaInterval
        ciba.pings = pingRepository
        ciba.pingSealer = SealedResultToken(key: pingKey)
        let passwordLogin = accounts.passwordLogin
        ciba.userCode = { client, identifier, code in
            let userId = try await passwordLogin.verify(client: client, identifier: identifier, password: code, ip: nil)
            try await passwordLogin.succeeded(userId: userId)
        }
        self.ciba = ciba
        cibaChannel = CIBAChannelService(oidc: oidc, pings: pingRepository, sealer: SealedResultToken(key: pingKey))
        let relyingParty = auth.relyingParty
        var pingQueue = CIBAPings(
            repository: pingRepository, clients: SQLCIBAClientRepository(), database: database, sealer: SealedResultToken(key: pingKey),
            httpClient: logoutHTTPClient, timeout: configuration.webhooksTimeout,
            outcome: { clientId, requestId in try await relyingParty.outcome(clientId: clientId, id: requestId) }
        )
        let pushing = ciba
        pingQueue.pushBody = { clientId, id, authReqId in try await pushing.pushBody(clientId: clientId, idHash: id, authReqId: authReqId) }
        cibaPings = CIBAPingService(queue: pingQueue, logger: logger, pollInterval: configuration.webhooksPollInterval)
    }
}
