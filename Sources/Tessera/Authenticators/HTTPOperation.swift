import Foundation

/// An operation whose HTTP the app can customise (the seed's `NMAHttpOperation`, which
/// `NMARegistration` and `NMAAuthentication` extend): ``Registration`` and ``Authentication``, which
/// take both from ``AuthenticatorOperation``.
public protocol HTTPOperation: AnyObject, Sendable {
    /// Headers added to every request of the operation (the seed's `requestHeaders`). They never
    /// replace the SDK's own (signature, digest, client key, bundle id, content type).
    @discardableResult
    func requestHeaders(_ requestHeaders: [String: String]) -> Self
    /// The handler every request of the operation goes through (see ``OperationHTTPHandler``); without
    /// one, the SDK's own transport sends them.
    @discardableResult
    func httpHandler(_ httpHandler: any OperationHTTPHandler) -> Self
}

extension TesseraClient {
    /// The client an operation talks through: this one's configuration, key store and log, with
    /// `serverURL` instead of the configured one when given, and `headers` and `handler` applied to
    /// each request. Without any of them, this client.
    func operationClient(serverURL: URL?, headers: [String: String], handler: (any OperationHTTPHandler)?) -> TesseraClient {
        guard serverURL != nil || !headers.isEmpty || handler != nil else { return self }
        var configuration = self.configuration
        if let serverURL { configuration.serverURL = serverURL }
        return TesseraClient(
            configuration: configuration, keyStore: keyStore, onTotalLog: clientLog,
            transport: OperationTransport(base: transport, headers: headers, handler: handler)
        )
    }
}
