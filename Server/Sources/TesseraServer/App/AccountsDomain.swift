import AsyncHTTPClient
import Logging
import TesseraCore

/// The accounts layer wired once: clients and their policies, one-time codes and the courier that
/// sends them, sign-up, device registration, registration flows, sessions and password log-in.
/// Holds no logic itself; device changes go out through the feed it is given (the verifier nodes'
/// sync), which it does not know.
struct AccountsDomain: Sendable {
    let clients: ClientService
    let courier: CourierService
    let otp: OTPService
    let sessions: SessionService
    let policies: ClientPolicyRepository
    let signUp: SignUpService
    let registration: DeviceRegistrationService
    let flows: RegistrationFlowService
    let passwordLogin: PasswordLoginService
    let sessionDevices: SessionDeviceService

    init(
        configuration: ServerConfiguration, storage: ServerStorage, keys: ServerKeys, deviceChanges: any DeviceChangeFeed,
        deviceAttestation: (any DeviceAttestationCheck)? = nil, httpClient: HTTPClient,
        metrics: ServerMetrics, clock: WallClock, random: RandomSource, logger: Logger
    ) {
        let database = storage.database, stores = storage.repositories, hasher = keys.hasher
        clients = ClientService(repository: stores.clients, hasher: hasher, random: random, clock: clock)
        courier = CourierService(
            outbox: stores.outbox, senders: Self.messageSenders(configuration, httpClient: httpClient, logger: logger), logger: logger,
            pollInterval: configuration.courierPollInterval, metrics: metrics
        )
        otp = OTPService(
            database: database, repository: stores.otp, audit: stores.audit, outbox: stores.outbox, courier: courier, hasher: hasher, random: random,
            clock: clock, settings: configuration.otp, templates: configuration.templates, logger: logger,
            counters: RateCounters(buffer: database.kind == .postgres ? SharedCounterBuffer(database: database) : nil)
        )
        sessions = SessionService(
            database: database, repository: stores.sessions, users: stores.users, audit: stores.audit, hasher: hasher, random: random, clock: clock,
            lifetime: configuration.sessionLifetime, idleTimeout: configuration.sessionIdleTimeout,
            pendingLifetime: configuration.sessionPendingLifetime
        )
        policies = ClientPolicyRepository(database: database, clock: clock, defaultDevicesPerUser: configuration.maxDevicesPerUser)
        let issuer = DeviceIssuer(
            devices: stores.devices, sessions: sessions, totpKey: keys.totpKey, random: random, attestation: deviceAttestation
        )
        signUp = SignUpService(
            database: database, users: stores.users, audit: stores.audit, issuer: issuer, otp: otp, policies: policies, random: random, clock: clock,
            nodeSync: deviceChanges
        )
        registration = DeviceRegistrationService(
            database: database, users: stores.users, audit: stores.audit, issuer: issuer, otp: otp, clock: clock, policies: policies,
            identityChecksPerHour: configuration.identityChecksPerHour, nodeSync: deviceChanges
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
            database: database, issuer: issuer, audit: stores.audit, sessions: sessions, policies: policies, clock: clock, nodeSync: deviceChanges
        )
    }

    /// The message senders the configuration asks for (file outbox, SMTP, HTTP SMS gateway).
    static func messageSenders(_ configuration: ServerConfiguration, httpClient: HTTPClient, logger: Logger) -> [OTPChannel: any MessageSender] {
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
}
