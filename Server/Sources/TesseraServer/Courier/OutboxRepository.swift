import Logging
import SQLKit

/// The courier's storage, the one owner of the `outbox` table: messages accepted for delivery,
/// claimed by workers under a lease, settled once sent or given up. Another domain only enqueues,
/// inside its own transaction (``enqueue(_:in:)``), so a message exists exactly when its cause does.
protocol OutboxRepository: Sendable {
    /// How long a claimed message is reserved for one worker (renewed every third of it while sending).
    var lease: Duration { get }
    /// Adds a message inside the caller's transaction.
    func enqueue(_ message: OutboundMessage, in sql: any SQLDatabase) async throws
    /// Reserves up to `limit` due messages for the worker `claimant`.
    func claimDue(limit: Int, claimant: String) async throws -> [(message: OutboundMessage, attempts: Int)]
    /// Extends the lease of the messages `claimant` still holds; returns those it still holds.
    @discardableResult
    func renew(ids: [String], claimant: String) async throws -> [String]
    func markSent(ids: [String]) async throws
    /// Schedules another try after a backoff, or gives the message up after its last attempt.
    func markFailed(id: String, attempts: Int, error: String) async throws
    func counts() async throws -> Outbox.Counts
    /// The messages waiting for delivery and when the oldest was queued (milliseconds; nil when none wait).
    func pending() async throws -> (count: Int, oldestCreatedAt: Int64?)
    /// Deletes settled messages created before `cutoff`.
    func purge(sentBefore cutoff: Int64) async throws
    /// Runs `body` (the sending of a claimed batch) while renewing the batch's leases for `claimant`.
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T
}

extension Outbox: OutboxRepository {
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await queue.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }
}
