import TesseraCore

/// What the courier counts; the server's metrics registry implements it (``ServerMetrics``), which
/// the accounts layer does not know.
package protocol CourierMetrics: Sendable {
    /// A code to `channel` was delivered, or an attempt failed.
    func otpDelivery(channel: OTPChannel, delivered: Bool)
    /// The outbox's depth and the age of its oldest message (when `/metrics` is scraped).
    func courierQueue(depth: Int, oldestAge: Duration)
}
