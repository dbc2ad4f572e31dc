/// What became of one delivery attempt: the one vocabulary of every outbox (the courier's messages,
/// pushes, webhooks). The queue that made the attempt records it (``DeliveryQueue/record(_:logger:)``).
package enum DeliveryFate: Sendable, Equatable {
    /// The peer took it: done.
    case delivered
    /// Nothing is left to deliver (the request expired, the device has no push token, the endpoint is
    /// gone or disabled): done, without an error.
    case dropped
    /// This attempt failed: try again after the queue's backoff (or the peer's `Retry-After`, when
    /// later), unless it was the last attempt, when the delivery is given up.
    case retry(error: String, status: Int? = nil, retryAfter: Duration? = nil)
    /// The peer refused it for good: given up now, without another try.
    case refused(error: String, status: Int? = nil)
    /// The attempt could not be made because this server's own storage failed, not the peer: tried again
    /// after `after`, however many attempts were made (an outage of our own never gives a delivery up).
    /// The webhooks' queue makes it when it cannot read the endpoint; a queue that never makes it records
    /// it as a ``retry(error:status:retryAfter:)``.
    case postponed(error: String, after: Duration)

    /// Whether nothing more will happen to the delivery whatever its attempts (delivered or dropped).
    package var isSettled: Bool {
        switch self {
        case .delivered, .dropped: true
        case .retry, .refused, .postponed: false
        }
    }
}
