import SQLKit

/// The result-token keys, sealed, the one owner of `signing_keys` (``ResultTokens`` seals, loads and
/// rotates them). Each method runs on the caller's handle: ``ResultTokens`` keeps its transactions.
///
/// A key is either in use (it signs while it is the newest of its algorithm; the one before it stays
/// published for the tokens it signed) or **next**: published in the JWKS but signing nothing until a
/// rotation promotes it, so that relying parties have it before the first token signed with it.
package protocol SigningKeyRepository: Sendable {
    /// The live keys in use of an algorithm (`ES256`, `RS256`), newest first: the active key and the one before it.
    func liveKeys(algorithm: String, in sql: any SQLDatabase) async throws -> [(kid: String, sealed: String)]
    /// The live next keys of an algorithm, newest first (normally one; two instances starting at once may make two).
    func nextKeys(algorithm: String, in sql: any SQLDatabase) async throws -> [(kid: String, sealed: String)]
    /// Stores a sealed key as the newest, in use or next: created at `now`, or just after the newest key so
    /// far when that is not earlier, so that "newest" is never a tie. Run it in a transaction.
    func insert(kid: String, sealed: String, algorithm: String, next: Bool, now: Int64, in sql: any SQLDatabase) async throws
    /// Puts a next key in use as the newest key (as ``insert(kid:sealed:algorithm:next:now:in:)`` orders it).
    func promote(kid: String, now: Int64, in sql: any SQLDatabase) async throws
    /// Retires, at `now`, every live key in use of the algorithm but the newest two, and every next key
    /// of it. Run it in a transaction.
    func retire(algorithm: String, now: Int64, in sql: any SQLDatabase) async throws
}

/// ``SigningKeyRepository`` over SQLKit.
package struct SQLSigningKeyRepository: SigningKeyRepository {
    package init() {}

    package func liveKeys(algorithm: String, in sql: any SQLDatabase) async throws -> [(kid: String, sealed: String)] {
        try await Self.keys(algorithm: algorithm, next: false, limit: 2, in: sql)
    }

    package func nextKeys(algorithm: String, in sql: any SQLDatabase) async throws -> [(kid: String, sealed: String)] {
        try await Self.keys(algorithm: algorithm, next: true, limit: 100, in: sql)
    }

    private static func keys(algorithm: String, next: Bool, limit: Int, in sql: any SQLDatabase) async throws -> [(kid: String, sealed: String)] {
        try await sql.raw(
            """
            SELECT kid, sealed FROM signing_keys WHERE retired_at IS NULL AND alg = \(bind: algorithm) AND upcoming = \(bind: next ? 1 : 0)
            ORDER BY created_at DESC, kid DESC LIMIT \(bind: limit)
            """
        ).all()
            .map { (try $0.decode(column: "kid", as: String.self), try $0.decode(column: "sealed", as: String.self)) }
    }

    /// Strictly newer than every key so far, so "newest" is never a tie.
    private static func newestTime(after now: Int64, in sql: any SQLDatabase) async throws -> Int64 {
        let newest = try await sql.raw("SELECT MAX(created_at) AS newest FROM signing_keys").first()?.decode(column: "newest", as: Int64?.self)
        return max(now, (newest ?? 0) + 1)
    }

    package func insert(kid: String, sealed: String, algorithm: String, next: Bool, now: Int64, in sql: any SQLDatabase) async throws {
        let at = try await Self.newestTime(after: now, in: sql)
        try await sql.raw(
            """
            INSERT INTO signing_keys (kid, sealed, alg, upcoming, created_at)
            VALUES (\(bind: kid), \(bind: sealed), \(bind: algorithm), \(bind: next ? 1 : 0), \(bind: at))
            """
        ).run()
    }

    package func promote(kid: String, now: Int64, in sql: any SQLDatabase) async throws {
        let at = try await Self.newestTime(after: now, in: sql)
        try await sql.raw("UPDATE signing_keys SET upcoming = 0, created_at = \(bind: at) WHERE kid = \(bind: kid)").run()
    }

    package func retire(algorithm: String, now: Int64, in sql: any SQLDatabase) async throws {
        let keep = try await liveKeys(algorithm: algorithm, in: sql).map(\.kid)
        try await sql.update("signing_keys").set("retired_at", to: now).where("retired_at", .is, SQLLiteral.null)
            .where("alg", .equal, algorithm).where("kid", .notIn, keep).run()
    }
}
