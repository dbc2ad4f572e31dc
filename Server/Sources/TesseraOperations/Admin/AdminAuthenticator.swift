import SQLKit
import TesseraCore

/// Checks the admin token. The token is generated at first start (printed once) and stored only
/// as a keyed hash; a token given in the configuration is used instead when set.
package struct AdminAuthenticator: Sendable {
    package let database: any Database
    package let hasher: SecretHasher
    package let configuredToken: String?
    /// Where the token's hash is kept (`admin_token_hash`).
    package var settings: any ServerSettingsRepository = SQLServerSettingsRepository()

    package init(
        database: any Database,
        hasher: SecretHasher,
        configuredToken: String?,
        settings: any ServerSettingsRepository = SQLServerSettingsRepository()
    ) {
        self.database = database
        self.hasher = hasher
        self.configuredToken = configuredToken
        self.settings = settings
    }

    package static let domain = "admin-token"
    package static let settingName = "admin_token_hash"

    /// Creates and returns a token when none exists yet (first start); nil otherwise.
    package static func createTokenIfMissing(
        database: any Database, hasher: SecretHasher, random: RandomSource, configured: String?,
        settings: any ServerSettingsRepository = SQLServerSettingsRepository()
    ) async throws -> String? {
        let token = configured ?? random.token(prefix: "tat_")
        let hash = hasher.hash(token, domain: domain)
        let inserted = try await database.withSQL { sql in try await settings.insertIfMissing(name: settingName, value: hash, in: sql) }
        return inserted && configured == nil ? token : (inserted ? "" : nil)
    }

    /// Replaces the stored token with a new one and returns it.
    package static func resetToken(
        database: any Database, hasher: SecretHasher, random: RandomSource, settings: any ServerSettingsRepository = SQLServerSettingsRepository()
    ) async throws -> String {
        let token = random.token(prefix: "tat_")
        let hash = hasher.hash(token, domain: domain)
        try await database.withSQL { sql in try await settings.set(name: settingName, value: hash, in: sql) }
        return token
    }

    package func verify(authorization: String?) async throws {
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
        let settings = self.settings
        let stored = try await database.withSQL { sql in try await settings.value(name: Self.settingName, in: sql) }
        guard let stored, hasher.verify(token, domain: Self.domain, against: stored) else {
            throw AppError.adminUnauthorized(detail: "Admin token invalid")
        }
    }
}
