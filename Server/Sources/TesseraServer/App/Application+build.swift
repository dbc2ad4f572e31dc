import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ServiceLifecycle

extension TesseraRuntime {
    /// The router with every route; also used by tests to compare with the OpenAPI document. The
    /// middleware groups are built here; each layer adds its own routes to them.
    public func makeRouter() -> Router<TesseraRequestContext> {
        let router = Router(context: TesseraRequestContext.self, options: .autoGenerateHeadEndpoints)   // HEAD as GET, RFC 9110 §9.3.2
        let routes = RouteTable()
        router.middlewares.add(HTTPMetricsMiddleware(metrics: metrics.http))
        router.middlewares.add(ClientAddressMiddleware(resolver: configuration.clientAddressResolver))
        router.middlewares.add(ProblemMiddleware(bodyLimit: configuration.bodyLimit, routes: routes))
        HealthController<TesseraRequestContext>(database: database).addRoutes(to: router)
        let signed = SignedRequestMiddleware<TesseraRequestContext>(
            verifier: SignedRequestVerifier(database: database, keys: DeviceSigningKeys(devices: repositories.devices), clock: clock),
            bodyLimit: configuration.bodyLimit
        )
        let groups = RouteGroups(
            router: router,
            app: router.group("v1").add(middleware: ClientMiddleware(clients: clients)),
            signedDevices: router.group("v1/devices").add(middleware: ClientMiddleware(clients: clients)).add(middleware: signed),
            signedAuth: router.group("v1/auth").add(middleware: ClientMiddleware(clients: clients)).add(middleware: signed),
            relyingParty: router.group("v1/rp").add(middleware: BackendAuthMiddleware(clients: clients)),
            admin: router.group("v1/admin").add(middleware: AdminMiddleware(authenticator: admin, console: consoleSessions))
                .add(middleware: AdminAuditMiddleware(database: database, audit: repositories.audit)),
            bodyLimit: configuration.bodyLimit
        )
        accounts.addRoutes(to: groups)
        signIn.addRoutes(to: groups)
        operations.addRoutes(to: groups, runtime: self)
        routes.fill(from: router.routes)
        return router
    }

    /// The metrics listener's router: `GET /metrics` only (``MetricsController``), with problems for errors.
    public func makeMetricsRouter() -> Router<TesseraRequestContext> {
        let router = Router(context: TesseraRequestContext.self, options: .autoGenerateHeadEndpoints)   // HEAD as GET, RFC 9110 §9.3.2
        let routes = RouteTable()
        router.middlewares.add(ProblemMiddleware(bodyLimit: configuration.bodyLimit, routes: routes))
        MetricsController<TesseraRequestContext>(metrics: metrics, courier: courier, clock: clock, token: configuration.metricsToken)
            .addRoutes(to: router)
        routes.fill(from: router.routes)
        return router
    }

    /// The services that deliver and clean up: courier, node sync, channel expiry, the auth event relay, push, webhooks.
    public var backgroundServices: [any Service] { [courier, nodeSync] + auth.services(logger: logger) + [push, webhooks, signIn.logouts, signIn.passkeyNodes, signIn.cibaPings]
            + (storage.repositories.audit.sequencer.map { [$0] } ?? []) }

    /// HTTP/1.1 (over TLS when `tls` is given) with a problem document for requests that cannot be
    /// parsed (``MalformedRequestHandler``); `router`'s routes answer a method the parser does not know with 405.
    public static func httpServer(for router: Router<TesseraRequestContext>, tls: TLSFiles? = nil) throws -> HTTPServerBuilder {
        let routes = RouteTable()
        routes.fill(from: router.routes)
        return try HTTPServerBuilder.http1(tls: tls, additionalChannelHandlers: [MalformedRequestHandler(routes: routes)])
    }

    /// The HTTP application with its background services (those above, the janitor and the audit
    /// checkpoints, which tests on a manual clock start themselves); HTTPS when
    /// `tls.certificate` and `tls.key` are configured.
    public func makeApplication() throws -> some ApplicationProtocol {
        let router = makeRouter()
        var services = backgroundServices + [janitor, auditCheckpoints]
        if let listen = configuration.metricsListen {
            // Its own plain-HTTP listener (metrics.listen), so /metrics never shares the public address.
            let metricsServer = Application(
                router: makeMetricsRouter(), configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "Tessera"),
                logger: logger
            )
            services.append(NamedService(description: "MetricsListener", service: metricsServer))
        }
        return Application(
            router: router,
            server: try Self.httpServer(for: router, tls: configuration.tls),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Tessera"),
            services: services,
            logger: logger
        )
    }
}
