import SQLKit
import TesseraCore
import TesseraWebAuthn

/// Each client's App Attest settings (issue 41): the policy (`off`, `reported`, `required`) and the app whose
/// attestations its devices send (team ID, bundle ID, environment). Set by the admin, checked strictly; read by the
/// device routes, which answer 7406 while the policy is `off`.
package struct AppAttestSettingsService: Sendable {
    /// Where the settings are stored.
    package let database: any Database
    /// The owner of `app_attest_settings`.
    package let repository: any AppAttestSettingsRepository
    /// The time of a change (`updated_at`).
    package let clock: WallClock
    /// Queues the client's devices for the verifier nodes in the change's transaction, when the policy or the app
    /// changed (the nodes are sent the requirement and the app with each record); nil: the nodes are not told.
    package var nodeResync: (@Sendable (_ clientId: String, _ now: Int64, _ sql: any SQLDatabase) async throws -> Void)?

    /// A service.
    package init(
        database: any Database, repository: any AppAttestSettingsRepository = SQLAppAttestSettingsRepository(), clock: WallClock,
        nodeResync: (@Sendable (_ clientId: String, _ now: Int64, _ sql: any SQLDatabase) async throws -> Void)? = nil
    ) {
        self.database = database
        self.repository = repository
        self.clock = clock
        self.nodeResync = nodeResync
    }

    /// The longest bundle identifier Apple allows.
    static let maxBundleIdLength = 155

    /// The client's settings (the defaults, policy `off`, when none were set).
    package func settings(client: Client) async throws -> AppAttestSettings {
        try await settings(clientId: client.id)
    }

    /// Replaces the client's settings after checking each member (1005 naming the first wrong one).
    package func set(_ settings: AppAttestSettings, client: Client) async throws -> AppAttestSettings {
        let checked = try Self.checked(settings), repository = self.repository, now = clock.now(), nodeResync = self.nodeResync
        try await database.transaction { sql in
            let before = try await repository.settings(clientId: client.id, in: sql)
            try await repository.save(clientId: client.id, settings: checked, now: now, in: sql)
            if before != checked { try await nodeResync?(client.id, now, sql) }
        }
        return checked
    }

    /// The app whose attestations the client `clientId` accepts; 7406 while its policy is `off`.
    package func app(clientId: String) async throws -> AppAttestApp {
        try Self.app(of: try await settings(clientId: clientId))
    }

    /// The app of `settings`; 7406 while its policy is `off`.
    package static func app(of settings: AppAttestSettings) throws -> AppAttestApp {
        guard settings.policy != "off", let environment = AppAttestEnvironment(rawValue: settings.environment) else {
            throw AppError.appAttestOff()
        }
        return AppAttestApp(teamID: settings.teamId, bundleID: settings.bundleId, environment: environment)
    }

    /// The settings of the client `clientId` (one read).
    package func settings(clientId: String) async throws -> AppAttestSettings {
        let repository = self.repository
        return try await database.read { sql in try await repository.settings(clientId: clientId, in: sql) }
    }

    /// `settings` when every member is allowed: the policy and environment one of theirs, the team ID ten of `A–Z 0–9`,
    /// the bundle ID dot-separated runs of `A–Z a–z 0–9 -` (at most 155 characters); both required unless the policy
    /// is `off` (where they may be empty). Else 1005 naming the member.
    static func checked(_ settings: AppAttestSettings) throws -> AppAttestSettings {
        guard AppAttestSettings.policies.contains(settings.policy) else {
            throw AppError.invalidField("policy", "policy must be off, reported or required")
        }
        guard AppAttestSettings.environments.contains(settings.environment) else {
            throw AppError.invalidField("environment", "environment must be development or production")
        }
        guard settings.teamId.isEmpty || isTeamId(settings.teamId) else {
            throw AppError.invalidField("teamId", "teamId must be an Apple team ID: 10 characters A–Z and 0–9")
        }
        guard settings.bundleId.isEmpty || isBundleId(settings.bundleId) else {
            throw AppError.invalidField(
                "bundleId", "bundleId must be a bundle identifier: A–Z, a–z, 0–9 and hyphens, in parts separated by dots, at most 155 characters"
            )
        }
        guard !settings.assertSignIn || settings.policy != "off" else {
            throw AppError.invalidField("assertSignIn", "assertSignIn needs the policy reported or required")
        }
        if settings.policy != "off" {
            guard !settings.teamId.isEmpty else { throw AppError.invalidField("teamId", "teamId is required when the policy is \(settings.policy)") }
            guard !settings.bundleId.isEmpty else { throw AppError.invalidField("bundleId", "bundleId is required when the policy is \(settings.policy)") }
        }
        return settings
    }

    /// Ten ASCII upper-case letters and digits.
    static func isTeamId(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
    }

    /// Non-empty runs of ASCII letters, digits and hyphens, separated by single dots, at most 155 characters.
    static func isBundleId(_ text: String) -> Bool {
        guard text.utf8.count <= maxBundleIdLength else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        }
    }
}
