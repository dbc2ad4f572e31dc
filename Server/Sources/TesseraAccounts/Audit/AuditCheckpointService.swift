import Crypto
import Logging
import ServiceLifecycle

/// Writes a checkpoint of the audit log every ``interval`` (on the injected clock): the head's
/// sequence number and hash, with the time, signed with the audit key. Nothing is written while the
/// log has not grown since the last checkpoint. Several instances may checkpoint the same row; the
/// second is ignored (one checkpoint per row and key).
package struct AuditCheckpointService: Service {
    package let database: any Database
    package let audit: any AuditLog
    package let key: Curve25519.Signing.PrivateKey
    package let clock: WallClock
    package let interval: Duration
    package let logger: Logger

    package init(
        database: any Database,
        audit: any AuditLog,
        key: Curve25519.Signing.PrivateKey,
        clock: WallClock,
        interval: Duration,
        logger: Logger
    ) {
        self.database = database
        self.audit = audit
        self.key = key
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await clock.sleep(interval) }
            } catch {
                return
            }
            do {
                try await checkpoint()
            } catch {
                logger.warning("audit checkpoint failed", metadata: ["error": .string(String(describing: error))])
            }
        }
    }

    /// Signs and stores a checkpoint at the current head, unless the newest one already covers it.
    /// - Returns: the checkpoint written, or nil.
    @discardableResult
    package func checkpoint() async throws -> AuditCheckpoint? {
        let audit = self.audit, key = self.key, now = clock.now()
        return try await database.transaction { sql in
            let head = try await audit.head(in: sql)
            if let last = try await audit.lastCheckpointSeq(in: sql), last >= head.seq { return nil }
            let checkpoint = try AuditChain.checkpoint(seq: head.seq, hash: head.hash, time: now, key: key)
            try await audit.insert(checkpoint, in: sql)
            return checkpoint
        }
    }
}
