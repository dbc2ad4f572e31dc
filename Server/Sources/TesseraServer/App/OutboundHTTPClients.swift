import AsyncHTTPClient
import NIOCore
import NIOSSL

/// The server's HTTP clients, one per kind of peer, shut down with the runtime.
struct OutboundHTTPClients: Sendable {
    /// Verifier nodes and the SMS gateway.
    let general: HTTPClient
    /// HTTP/2 to the push providers (with `push.caFile` among its trust roots when set).
    let push: HTTPClient
    /// HTTP/1.1 and HTTP/2 to webhook receivers, back-channel logout and CIBA notification endpoints (with
    /// `webhooks.caFile` among its trust roots when set); redirects are not followed.
    let webhooks: HTTPClient

    init(configuration: ServerConfiguration) {
        general = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.untraced())
        push = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.push(configuration))
        webhooks = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.webhooks(configuration))
    }

    /// To webhook receivers, back-channel logout and CIBA endpoints: no redirects, `webhooks.caFile` trusted too. A
    /// receiver that refuses connections fails its attempt at once (retried by the outbox's backoff), instead of being
    /// dialled again until the connect timeout ran out while other deliveries waited.
    static func webhooks(_ configuration: ServerConfiguration) -> HTTPClient.Configuration {
        var http = untraced()
        http.redirectConfiguration = .disallow
        http.connectionPool.retryConnectionEstablishment = false
        http.timeout.connect = .milliseconds(configuration.webhooksTimeout.millis)
        if let file = configuration.webhooksCAFile { http.tlsConfiguration = trusting(file) }
        return http
    }

    /// The system's trust roots and the certificates of `file` (PEM).
    private static func trusting(_ file: String) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(file)]
        return tls
    }

    /// An HTTP client configuration without tracing. async-http-client takes the process's tracer when none is
    /// given, and that is a no-op tracer when nothing bootstrapped one (Tessera does not): each request then
    /// still opened a span and parsed its URL again for the span's attributes, 1 % of the server's CPU during
    /// login ceremonies (three node calls each).
    static func untraced() -> HTTPClient.Configuration {
        var http = HTTPClient.Configuration()
        http.tracing.tracer = nil
        return http
    }

    /// HTTP/2 over TLS to APNs and FCM, trusting `push.caFile` too when it is set. Redirects are not
    /// followed: a push goes to the provider's or the allowed UnifiedPush endpoint's address only.
    private static func push(_ configuration: ServerConfiguration) -> HTTPClient.Configuration {
        var http = untraced()
        http.httpVersion = .automatic
        http.redirectConfiguration = .disallow
        // A provider (or UnifiedPush endpoint) that refuses connections fails the attempt at once; the outbox retries.
        http.connectionPool.retryConnectionEstablishment = false
        if let file = configuration.pushCAFile { http.tlsConfiguration = trusting(file) }
        return http
    }

    /// Closes the three clients.
    func shutdown() async {
        try? await general.shutdown()
        try? await push.shutdown()
        try? await webhooks.shutdown()
    }
}
