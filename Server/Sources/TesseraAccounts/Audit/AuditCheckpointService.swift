import Crypto
import Foundation
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
    /// `audit.checkpointFile`: each checkpoint is also appended here, one JSON object a line, so that it leaves the
    /// database (keep the file on other storage; `tessera admin audit verify --checkpoints FILE` checks the log
    /// against it). Every checkpoint is also logged at notice level, for the same reason.
    package var file: String?

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
        let written: AuditCheckpoint? = try await database.transaction { sql in
            let head = try await audit.head(in: sql)
            if let last = try await audit.lastCheckpointSeq(in: sql), last >= head.seq { return nil }
            let checkpoint = try AuditChain.checkpoint(seq: head.seq, hash: head.hash, time: now, key: key)
            try await audit.insert(checkpoint, in: sql)
            return checkpoint
        }
        if let written { export(written) }
        return written
    }

    /// Takes a checkpoint out of the database: a log line, and a line of `file` when one is set.
    func export(_ checkpoint: AuditCheckpoint) {
        logger.notice("audit checkpoint", metadata: [
            "seq": .stringConvertible(checkpoint.seq), "hash": .string(checkpoint.hash), "time": .stringConvertible(checkpoint.time),
            "keyId": .string(checkpoint.keyId), "signature": .string(checkpoint.signature),
        ])
        guard let file else { return }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var line = try encoder.encode(checkpoint)
            line.append(UInt8(ascii: "\n"))
            if !FileManager.default.fileExists(atPath: file) {
                guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: line)
            try handle.synchronize()
        } catch {
            logger.error("audit checkpoint not written to audit.checkpointFile", metadata: ["file": .string(file), "error": .string(String(describing: error))])
        }
    }
}
