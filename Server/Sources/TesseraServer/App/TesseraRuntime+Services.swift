/// The services by name, reached through the layer that owns them: what the router, the CLI's admin
/// commands and the tests call.
extension TesseraRuntime {
    var database: any Database { storage.database }
    var repositories: Repositories { storage.repositories }
    var outbox: SQLOutboxRepository { storage.outbox }

    public var clients: ClientService { accounts.clients }
    public var otp: OTPService { accounts.otp }
    var courier: CourierService { accounts.courier }
    var sessions: SessionService { accounts.sessions }
    var policies: ClientPolicyRepository { accounts.policies }
    public var signUp: SignUpService { accounts.signUp }
    public var registration: DeviceRegistrationService { accounts.registration }
    var flows: RegistrationFlowService { accounts.flows }
    var passwordLogin: PasswordLoginService { accounts.passwordLogin }
    var sessionDevices: SessionDeviceService { accounts.sessionDevices }

    var nodes: NodeDirectory { signIn.nodes }
    var nodeSync: NodeSyncService { signIn.nodeSync }
    var tokens: ResultTokens { signIn.tokens }
    var auth: AuthDomain { signIn.auth }
    /// Wakes devices through APNs and FCM (push outbox).
    var push: PushService { signIn.push }
    var totp: TOTPVerifier { signIn.totp }
    var introspection: Introspection { signIn.introspection }
    var authenticators: AuthenticatorService { signIn.authenticators }
    /// Log-in with a registered authenticator (issue 17 item 6).
    var authenticatorLogin: AuthenticatorLoginService { signIn.authenticatorLogin }
    /// The OpenID Connect provider and its hosted sign-in page.
    var oidc: OIDCService { signIn.oidc }
    /// Passkeys (WebAuthn) for Tessera's own origin.
    var passkeys: PasskeyService { signIn.passkeys }
    /// Back-channel logout (logout outbox).
    var logouts: BackchannelLogoutService { signIn.logouts }
    /// App Attest: the devices' challenges, attestations and assertions.
    var appAttest: AppAttestService { signIn.appAttest }
    /// The clients' App Attest settings.
    var appAttestSettings: AppAttestSettingsService { signIn.appAttestSettings }

    var admin: AdminAuthenticator { operations.admin }
    var consoleSessions: ConsoleSessions { operations.consoleSessions }
    /// User and device administration.
    public var userAdmin: UserAdminService { operations.userAdmin }
    var webhooks: WebhookService { operations.webhooks }
    var auditCheckpoints: AuditCheckpointService { operations.auditCheckpoints }
    var janitor: JanitorService { operations.janitor }
    /// This server's metrics (its own registry; `/metrics` on the metrics listener renders it).
    public var metrics: ServerMetrics { operations.metrics }

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
