import SQLKit
import TesseraCore

/// Checks the admin token. The token is generated at first start (printed once) and stored only
/// as a keyed hash; a token given in the configuration is used instead when set.
struct AdminAuthenticator: Sendable {
    let database: any Database
    let hasher: SecretHasher
    let configuredToken: String?

    static let domain = "admin-token"
    static let settingName = "admin_token_hash"

    /// Creates and returns a token when none exists yet (first start); nil otherwise.
    static func createTokenIfMissing(database: any Database, hasher: SecretHasher, random: RandomSource, configured: String?) async throws -> String? {
        let token = configured ?? random.token(prefix: "tat_")
        let hash = hasher.hash(token, domain: domain)
        let inserted = try await database.withSQL { sql in
            try await sql.raw(
                "INSERT INTO server_settings (name, value) VALUES (\(bind: settingName), \(bind: hash)) ON CONFLICT (name) DO NOTHING RETURNING name"
            ).first() != nil
        }
        return inserted && configured == nil ? token : (inserted ? "" : nil)
    }

    /// Replaces the stored token with a new one and returns it.
    static func resetToken(database: any Database, hasher: SecretHasher, random: RandomSource) async throws -> String {
        let token = random.token(prefix: "tat_")
        let hash = hasher.hash(token, domain: domain)
        try await database.withSQL { sql in
            try await sql.raw(
                "INSERT INTO server_settings (name, value) VALUES (\(bind: settingName), \(bind: hash)) ON CONFLICT (name) DO UPDATE SET value = excluded.value"
            ).run()
        }
        return token
    }

    func verify(authorization: String?) async throws {
        guard let authorization, authorization.hasPrefix("Bearer ") else {
            throw AppError.adminUnauthorized(detail: "Send Authorization: Bearer <admin token>")
        }
        let token = String(authorization.dropFirst("Bearer ".count))
        if let configuredToken {
            guard constantTimeEquals(Array(token.utf8), Array(configuredToken.utf8)) else {
                throw AppError.adminUnauthorized(detail: "Admin token invalid")
            }
            return
        }
        let stored = try await database.withSQL { sql in
            try await sql.raw("SELECT value FROM server_settings WHERE name = \(bind: Self.settingName)").first()?
                .decode(column: "value", as: String.self)
        }
        guard let stored, hasher.verify(token, domain: Self.domain, against: stored) else {
            throw AppError.adminUnauthorized(detail: "Admin token invalid")
        }
    }
}
