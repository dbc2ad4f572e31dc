import Crypto
import Foundation

/// Checks an audit log read back in sequence order: each row's hash, the links between rows, no gap,
/// the head, and every checkpoint's signature and hash. Feed it page by page (``check(_:)``), then
/// call ``finish(head:checkpoints:publicKey:)``; the first problem found is kept.
public struct AuditVerifier: Sendable {
    /// The first thing wrong, naming the row (or checkpoint) by its sequence number.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var seq: Int64
        public var message: String
        public var description: String { message }
    }

    /// Rows checked so far.
    public private(set) var count = 0
    private var lastSeq: Int64 = 0
    private var lastHash = AuditChain.genesis
    /// The hash at each sequence number a checkpoint may name (all of them; a log of millions of rows
    /// costs 64 bytes a row).
    private var hashes: [Int64: String] = [:]
    public private(set) var problem: Problem?

    public init() {}

    /// Checks the next rows (in sequence order).
    public mutating func check(_ entries: [AuditEntry]) {
        for entry in entries where problem == nil {
            if entry.seq != lastSeq + 1 {
                let missing = lastSeq + 1
                problem = entry.seq > missing
                    ? Problem(seq: missing, message: "row \(missing): missing (the log jumps from \(lastSeq) to \(entry.seq))")
                    : Problem(seq: entry.seq, message: "row \(entry.seq): out of order after row \(lastSeq)")
                return
            }
            if entry.prevHash != lastHash {
                problem = Problem(seq: entry.seq, message: "row \(entry.seq): prev_hash does not match the hash of row \(lastSeq)")
                return
            }
            let computed = AuditChain.hash(of: entry)
            if computed != entry.hash {
                problem = Problem(seq: entry.seq, message: "row \(entry.seq): contents do not match its hash (changed after it was written)")
                return
            }
            lastSeq = entry.seq
            lastHash = entry.hash
            hashes[entry.seq] = entry.hash
            count += 1
        }
    }

    /// The newest row a checked checkpoint vouches for (0: none); rows after it are covered by no signature yet.
    public private(set) var vouchedSeq: Int64 = 0

    /// Checks checkpoints kept outside the database (`audit.checkpointFile`) against the rows read and `publicKey`:
    /// each must be signed by the key, and the row it names must be there with its hash. A checkpoint past the last
    /// row read means rows were removed (the log truncated, its head rewound). Call after ``finish(head:checkpoints:publicKey:)``.
    public mutating func finish(external: [AuditCheckpoint], publicKey: AuditPublicKey) -> Problem? {
        if let problem { return problem }
        guard let raw = Data(base64Encoded: publicKey.publicKey), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            problem = Problem(seq: 0, message: "the audit public key cannot be read")
            return problem
        }
        for checkpoint in external.sorted(by: { $0.seq < $1.seq }) {
            let message = AuditChain.checkpointMessage(seq: checkpoint.seq, hash: checkpoint.hash, time: checkpoint.time)
            guard checkpoint.keyId == AuditChain.keyId(of: key), let signature = Data(base64Encoded: checkpoint.signature),
                  key.isValidSignature(signature, for: message)
            else {
                problem = Problem(seq: checkpoint.seq, message: "kept checkpoint at row \(checkpoint.seq): bad signature (key \(checkpoint.keyId))")
                return problem
            }
            if checkpoint.seq > lastSeq {
                problem = Problem(
                    seq: checkpoint.seq,
                    message: "row \(checkpoint.seq): missing — a kept checkpoint vouches for it, but the log ends at row \(lastSeq) (truncated)"
                )
                return problem
            }
            guard checkpoint.seq == 0 || hashes[checkpoint.seq] == checkpoint.hash else {
                problem = Problem(seq: checkpoint.seq, message: "row \(checkpoint.seq): its hash differs from the kept checkpoint at row \(checkpoint.seq)")
                return problem
            }
            vouchedSeq = max(vouchedSeq, checkpoint.seq)
        }
        return nil
    }

    /// Checks the end of the chain against `head` and each checkpoint against the rows and `publicKey`.
    /// Read the head and the checkpoints before the rows: rows appended meanwhile are welcome, but
    /// every row the head or a checkpoint names must be among those checked.
    /// - Returns: the first problem, or nil when the whole log verifies.
    public mutating func finish(head: AuditHead, checkpoints: [AuditCheckpoint], publicKey: AuditPublicKey) -> Problem? {
        if let problem { return problem }
        // Rows may have been appended after the head was read: the head must be one of the rows.
        if head.seq > lastSeq {
            problem = Problem(seq: lastSeq + 1, message: "row \(lastSeq + 1): missing (the head is at \(head.seq), the rows end at \(lastSeq))")
        } else if head.seq > 0, hashes[head.seq] != head.hash {
            problem = Problem(seq: head.seq, message: "row \(head.seq): its hash differs from the chain head's")
        }
        if let problem { return problem }
        guard let raw = Data(base64Encoded: publicKey.publicKey), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            problem = Problem(seq: 0, message: "the audit public key cannot be read")
            return problem
        }
        let keyId = AuditChain.keyId(of: key)
        for checkpoint in checkpoints.sorted(by: { $0.seq < $1.seq }) {
            let message = AuditChain.checkpointMessage(seq: checkpoint.seq, hash: checkpoint.hash, time: checkpoint.time)
            guard checkpoint.keyId == keyId, let signature = Data(base64Encoded: checkpoint.signature),
                  key.isValidSignature(signature, for: message)
            else {
                problem = Problem(seq: checkpoint.seq, message: "checkpoint at row \(checkpoint.seq): bad signature (key \(checkpoint.keyId))")
                return problem
            }
            guard checkpoint.seq == 0 || hashes[checkpoint.seq] == checkpoint.hash else {
                problem = Problem(
                    seq: checkpoint.seq, message: "row \(checkpoint.seq): its hash differs from the signed checkpoint at row \(checkpoint.seq)"
                )
                return problem
            }
            vouchedSeq = max(vouchedSeq, checkpoint.seq)
        }
        return nil
    }
}
