import TesseraCore

/// How a push delivery ended, as the metrics count it.
package enum PushResult: String, CaseIterable, Sendable {
    case delivered, tokenInvalid = "token_invalid", retry, rejected, error
}

/// What the push sender counts; the server's metrics registry implements it (``ServerMetrics``),
/// which the push domain does not know.
package protocol PushMetrics: Sendable {
    /// One delivery to `provider` ended as `outcome`.
    func pushDelivery(provider: PushProvider, outcome: PushResult)
}
