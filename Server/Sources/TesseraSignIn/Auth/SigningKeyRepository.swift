import SQLKit

/// The result-token keys, sealed, the one owner of `signing_keys` (``ResultTokens`` seals, loads and
/// rotates them). Each method runs on the caller's handle: ``ResultTokens`` keeps its transactions.
package protocol SigningKeyRepository: Sendable {
    /// The live keys of an algorithm (`ES256`, `RS256`), newest first: the active key and the one before it.
    func liveKeys(algorithm: String, in sql: any SQLDatabase) async throws -> [(kid: String, sealed: String)]
    /// Stores a sealed key as the newest: created at `now`, or just after the newest key so far when
    /// that is not earlier, so that "newest" is never a tie. Run it in a transaction.
    func insert(kid: String, sealed: String, algorithm: String, now: Int64, in sql: any SQLDatabase) async throws
    /// Retires, at `now`, every live key of the algorithm but the newest two. Run it in a transaction.
    func retireAllButNewestTwo(algorithm: String, now: Int64, in sql: any SQLDatabase) async throws
}

/// ``SigningKeyRepository`` over SQLKit.
package struct SQLSigningKeyRepository: SigningKeyRepository {
    package func liveKeys(algorithm: String, in sql: any SQLDatabase) async throws -> [(kid: String, sealed: String)] {
        try await sql.raw(
            "SELECT kid, sealed FROM signing_keys WHERE retired_at IS NULL AND alg = \(bind: algorithm) ORDER BY created_at DESC, kid DESC LIMIT 2"
        ).all()
            .map { (try $0.decode(column: "kid", as: String.self), try $0.decode(column: "sealed", as: String.self)) }
    }

    package func insert(kid: String, sealed: String, algorithm: String, now: Int64, in sql: any SQLDatabase) async throws {
        // Strictly newer than every key so far, so "newest" is never a tie.
        let newest = try await sql.raw("SELECT MAX(created_at) AS newest FROM signing_keys").first()?.decode(column: "newest", as: Int64?.self)
        let at = max(now, (newest ?? 0) + 1)
        try await sql.raw(
            "INSERT INTO signing_keys (kid, sealed, alg, created_at) VALUES (\(bind: kid), \(bind: sealed), \(bind: algorithm), \(bind: at))"
        ).run()
    }

    package func retireAllButNewestTwo(algorithm: String, now: Int64, in sql: any SQLDatabase) async throws {
        let keep = try await liveKeys(algorithm: algorithm, in: sql).map(\.kid)
        try await sql.update("signing_keys").set("retired_at", to: now).where("retired_at", .is, SQLLiteral.null)
            .where("alg", .equal, algorithm).where("kid", .notIn, keep).run()
    }
}
