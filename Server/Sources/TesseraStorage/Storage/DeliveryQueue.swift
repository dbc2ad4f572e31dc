import Logging

/// One outbox as an ``OutboxWorker`` drains it: the owning domain claims its due rows under a lease
/// (``LeasedQueue``), makes one attempt per row and records each ``DeliveryFate``. The courier, the
/// push sender and the webhook sender are each one of these; the loop around them is the worker's.
package protocol DeliveryQueue: Sendable {
    /// One claimed row, with what its attempt needs.
    associatedtype Delivery: Sendable

    /// What log lines call the queue ("outbox", "push outbox", "webhook outbox").
    var name: String { get }
    /// Reserves up to `limit` due deliveries for the worker `claimant` (counting the attempt).
    func claimDue(limit: Int, claimant: String) async throws -> [Delivery]
    /// The row ID of a delivery, whose lease is renewed while it is attempted.
    func id(of delivery: Delivery) -> String
    /// Runs `body` while renewing the leases of `ids` for `claimant`.
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T
    /// Makes one attempt; a failure is a fate, never a throw.
    func attempt(_ delivery: Delivery, logger: Logger) async -> DeliveryFate
    /// Records how a batch's attempts went: settled rows at once, failed ones rescheduled or given up.
    func record(_ fates: [(delivery: Delivery, fate: DeliveryFate)], logger: Logger) async throws
}
