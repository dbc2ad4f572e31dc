import Hummingbird

/// The router and its middleware groups, built once by ``TesseraRuntime/makeRouter()``; each layer
/// adds its routes to the groups it serves.
struct RouteGroups {
    let router: Router<TesseraRequestContext>
    /// `/v1`, for a client's app (client key and bundle id).
    let app: RouterGroup<TesseraRequestContext>
    /// `/v1/devices`, signed by a device (RFC 9421).
    let signedDevices: RouterGroup<TesseraRequestContext>
    /// `/v1/auth`, signed by a device.
    let signedAuth: RouterGroup<TesseraRequestContext>
    /// `/v1/rp`, for a client's backend (client key and secret).
    let relyingParty: RouterGroup<TesseraRequestContext>
    /// `/v1/admin`, for the admin token or a console session; every change audited.
    let admin: RouterGroup<TesseraRequestContext>
    let bodyLimit: Int
}

extension AccountsDomain {
    /// Codes, sign-up, device registration, flows and sessions.
    func addRoutes(to groups: RouteGroups) {
        let limit = groups.bodyLimit
        OTPController(service: otp, bodyLimit: limit).addRoutes(to: groups.app)
        UserController(service: signUp, bodyLimit: limit).addRoutes(to: groups.app)
        DeviceController(service: registration, bodyLimit: limit).addRoutes(app: groups.app, signed: groups.signedDevices)
        FlowController(flows: flows, bodyLimit: limit).addRoutes(to: groups.app)
        let sessionGroup = { (requiresDevice: Bool) in
            groups.router.group("v1").add(middleware: ClientMiddleware(clients: clients))
                .add(middleware: SessionMiddleware(sessions: sessions, requiresDevice: requiresDevice))
        }
        SessionController(sessions: sessions, devices: sessionDevices, login: passwordLogin, bodyLimit: limit).addRoutes(
            app: groups.app, pending: sessionGroup(false), live: sessionGroup(true)
        )
    }
}

extension SignInDomain {
    /// Authenticators, push tokens, node-quorum authentication, the relying party's API and OpenID Connect (with CIBA).
    func addRoutes(to groups: RouteGroups) {
        let limit = groups.bodyLimit
        AuthenticatorController(authenticators: authenticators, login: authenticatorLogin, bodyLimit: limit)
            .addRoutes(app: groups.app, signed: groups.signedDevices)
        PasskeyController(passkeys: passkeys, apps: passkeyApps, bodyLimit: limit).addRoutes(app: groups.app, signed: groups.signedDevices)
        AppAttestController<TesseraRequestContext>(service: appAttest, settings: appAttestSettings, bodyLimit: limit).addRoutes(app: groups.app, signed: groups.signedDevices)
        PushDeviceController(devices: push.queue.devices, push: push.queue.repository, bodyLimit: limit, clock: oidc.clock).addRoutes(signed: groups.signedDevices)
        AuthController(device: auth.device, relay: auth.relay, history: auth.history, tokens: tokens, bodyLimit: limit)
            .addRoutes(signed: groups.signedAuth, open: groups.router.group("v1/auth"), root: groups.router)
        RelyingPartyController(auth: auth.relyingParty, totp: totp, introspection: introspection, bodyLimit: limit).addRoutes(to: groups.relyingParty)
        let openID = OIDCController<TesseraRequestContext>(service: oidc, passkeys: passkeys, random: oidc.random, bodyLimit: limit, ciba: ciba)
        openID.addRoutes(to: groups.router)
        PasskeyAppLinksController<TesseraRequestContext>(links: passkeyAppLinks).addRoutes(to: groups.router)
        openID.addAdminRoutes(to: groups.admin)
        let channel = CIBAChannelController<TesseraRequestContext>(channel: cibaChannel, bodyLimit: limit)
        channel.addRoutes(to: groups.router)
        channel.addAdminRoutes(to: groups.admin)
    }
}

extension OperationsDomain {
    /// The admin API (clients, nodes, users, tokens, push settings, webhooks, audit) and the console.
    func addRoutes(to groups: RouteGroups, runtime: TesseraRuntime) {
        let limit = groups.bodyLimit, database = runtime.database, audit = runtime.repositories.audit
        AdminController(
            clients: runtime.clients, nodes: runtime.nodeAdmin, users: userAdmin, tokens: runtime.tokens, totp: runtime.totp,
            sessions: runtime.sessions, authenticators: runtime.authenticators, bodyLimit: limit
        ).addRoutes(to: groups.admin)
        PushAdminController(push: runtime.pushAdmin, bodyLimit: limit).addRoutes(to: groups.admin)
        PasskeyAdminController<TesseraRequestContext>(
            passkeys: runtime.passkeys, appLinks: runtime.signIn.passkeyAppLinks, attestation: runtime.signIn.passkeyAttestation, clients: runtime.clients, users: userAdmin, bodyLimit: limit
        ).addRoutes(to: groups.admin)
        AppAttestAdminController<TesseraRequestContext>(settings: runtime.signIn.appAttestSettings, clients: runtime.clients, bodyLimit: limit)
            .addRoutes(to: groups.admin)
        WebhookAdminController<TesseraRequestContext>(webhooks: runtime.webhookAdmin, bodyLimit: limit).addRoutes(to: groups.admin)
        AuditController<TesseraRequestContext>(database: database, audit: audit, publicKey: runtime.keys.auditKey.publicKey).addRoutes(to: groups.admin)
        let console = ConsoleController<TesseraRequestContext>(
            sessions: consoleSessions, admin: admin, database: database, audit: audit, clock: runtime.clock,
            tls: runtime.configuration.tls != nil, bodyLimit: limit
        )
        console.addRoutes(to: groups.router)
        console.addAdminRoutes(to: groups.admin)
    }
}
