import Crypto
import Logging
import ServiceLifecycle

/// Writes a checkpoint of the audit log every ``interval`` (on the injected clock): the head's
/// sequence number and hash, with the time, signed with the audit key. Nothing is written while the
/// log has not grown since the last checkpoint. Several instances may checkpoint the same row; the
/// second is ignored (one checkpoint per row and key).
struct AuditCheckpointService: Service {
    let database: any Database
    let audit: any AuditLog
    let key: Curve25519.Signing.PrivateKey
    let clock: WallClock
    let interval: Duration
    let logger: Logger

    func run() async throws {
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
    func checkpoint() async throws -> AuditCheckpoint? {
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
