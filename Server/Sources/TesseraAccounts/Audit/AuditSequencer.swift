import Logging
import ServiceLifecycle

/// Chains the audit events that appends on PostgreSQL leave in `audit_pending` (``SQLAuditRepository``):
/// at once after this instance appended, every second for what other instances appended, and before
/// anything reads the log (``settle()``), so a reader sees every event whose change committed.
///
/// Several instances may run one each: they take turns on the head row, one batch at a time. Events are
/// chained in the order of their appends (a PostgreSQL sequence); a change that commits late is chained
/// when it has committed, so it can follow events stamped a little later than it.
package final class AuditSequencer: Service, Sendable {
    let database: any Database
    let log: SQLAuditRepository
    private let wakeup = WorkerWakeup()
    /// Events chained in one transaction at most.
    static let batchLimit = 500
    package var logger: Logger { Logger(label: "tessera") }

    init(database: any Database, log: SQLAuditRepository) {
        self.database = database
        self.log = log
    }

    /// Asks the sequencer to chain what is pending now.
    func wake() { wakeup.wake() }

    /// Chains every event pending now; returns when none is left (or throws what the database said).
    /// Readers settle before each read and the service every second, so the common case, nothing
    /// pending, costs one read without a lock instead of a transaction holding the head row.
    package func settle() async throws {
        let log = self.log
        guard try await database.read({ try await log.hasPending(in: $0) }) else { return }
        while true {
            let moved = try await database.transaction { sql in try await log.sequencePending(limit: Self.batchLimit, in: sql) }
            if moved > 0 { log.appended?.signal() }
            if moved < Self.batchLimit { return }
        }
    }

    package func run() async throws {
        await wakeup.run(pollInterval: .seconds(1)) { [self] in
            do {
                try await settle()
            } catch {
                logger.warning("audit events not chained yet", metadata: ["error": .string(String(describing: error))])
            }
        }
    }
}
