import Crypto

/// `GET /v1/admin/audit/verify`: the same check as `tessera admin audit verify` (``AuditVerifier``),
/// run by the server over its own database: every row's hash and link, the head, and every
/// checkpoint's signature. `problem` names the first bad row.
package struct AuditVerification: Codable, Sendable, Equatable {
    /// A bad row (or checkpoint) and what is wrong with it.
    package struct Problem: Codable, Sendable, Equatable {
        package var seq: Int64
        package var message: String
    }

    package var ok: Bool
    /// Rows checked.
    package var rows: Int
    /// Signed checkpoints checked.
    package var checkpoints: Int
    /// The audit key's ID the checkpoints were checked with.
    package var keyId: String
    package var problem: Problem?

    /// Verifies the log: the head and the checkpoints first, then the rows a page at a time.
    package static func run(database: any Database, audit: any AuditLog, publicKey: Curve25519.Signing.PublicKey, page: Int) async throws -> AuditVerification {
        let (head, checkpoints) = try await database.scan { sql in (try await audit.head(in: sql), try await audit.checkpoints(in: sql)) }
        var verifier = AuditVerifier()
        var query = AuditQuery(limit: page, named: false)
        while true {
            let current = query
            let entries = try await database.scan { try await audit.entries(current, in: $0) }
            verifier.check(entries)
            guard entries.count == page, verifier.problem == nil, let last = entries.last else { break }
            query.after = last.seq
        }
        let key = AuditPublicKey(keyId: AuditChain.keyId(of: publicKey), publicKey: publicKey.rawRepresentation.base64EncodedString())
        let problem = verifier.finish(head: head, checkpoints: checkpoints, publicKey: key)
        return AuditVerification(
            ok: problem == nil, rows: verifier.count, checkpoints: checkpoints.count, keyId: key.keyId,
            problem: problem.map { Problem(seq: $0.seq, message: $0.message) }
        )
    }
}
