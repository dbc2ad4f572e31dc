import Foundation

/// How a ``DeliveryQueue`` over a ``LeasedQueue`` table records a batch's fates, for the queues whose rows settle as
/// `sent` or `dropped` (the logout outbox, the CIBA ping outbox): delivered and dropped rows settle at once; a retry
/// or a postponement is rescheduled with the queue's backoff (given up after its last attempt); a refusal is given
/// up now.
package enum LeasedFates {
    package static func record<Delivery>(
        _ fates: [(delivery: Delivery, fate: DeliveryFate)], id: (Delivery) -> String, attempts: (Delivery) -> Int,
        settle: (_ ids: [String], _ status: String) async throws -> Void,
        markFailed: (_ id: String, _ attempts: Int, _ error: String, _ retryAfter: Duration?) async throws -> Void
    ) async throws {
        try await settle(fates.filter { $0.fate == .delivered }.map { id($0.delivery) }, "sent")
        try await settle(fates.filter { $0.fate == .dropped }.map { id($0.delivery) }, "dropped")
        for (delivery, fate) in fates {
            switch fate {
            case .delivered, .dropped: continue
            case .retry(let error, _, let retryAfter): try await markFailed(id(delivery), attempts(delivery), error, retryAfter)
            case .postponed(let error, _): try await markFailed(id(delivery), attempts(delivery), error, nil)
            case .refused(let error, _): try await markFailed(id(delivery), .max, error, nil)
            }
        }
    }
}
