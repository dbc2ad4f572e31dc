import Hummingbird
import Logging

extension TesseraRuntime {
    /// The router with every route; also used by tests to compare with the OpenAPI document.
    public func makeRouter() -> Router<TesseraRequestContext> {
        let router = Router(context: TesseraRequestContext.self)
        let routes = RouteTable()
        router.middlewares.add(ProblemMiddleware(bodyLimit: configuration.bodyLimit, routes: routes))
        HealthController<TesseraRequestContext>(database: database).addRoutes(to: router)

        let app = router.group("v1").add(middleware: ClientMiddleware(clients: clients))
        OTPController(service: otp, bodyLimit: configuration.bodyLimit).addRoutes(to: app)
        UserController(service: signUp, bodyLimit: configuration.bodyLimit).addRoutes(to: app)
        let signedDevices = router.group("v1/devices").add(middleware: ClientMiddleware(clients: clients)).add(
            middleware: SignedRequestMiddleware(
                verifier: SignedRequestVerifier(database: database, keys: SQLDeviceRepository(database: database), clock: clock),
                bodyLimit: configuration.bodyLimit
            )
        )
        DeviceController(service: registration, bodyLimit: configuration.bodyLimit).addRoutes(app: app, signed: signedDevices)

        let admin = router.group("v1/admin").add(middleware: AdminMiddleware(authenticator: self.admin))
        AdminController(clients: clients, bodyLimit: configuration.bodyLimit).addRoutes(to: admin)
        routes.fill(from: router.routes)
        return router
    }

    /// The HTTP application with its background services (courier, janitor).
    public func makeApplication() -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Tessera"),
            services: [courier, janitor],
            logger: logger
        )
    }
}
