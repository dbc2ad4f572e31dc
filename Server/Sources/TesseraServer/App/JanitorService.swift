import Logging
import ServiceLifecycle

/// Deletes what has ended: expired challenges (App Attest's a lifetime after their expiry) and dispose tokens, old rate windows, delivered
/// messages older than a week, registration flows a day after they expired, sessions and
/// authentications 90 days after they ended. Runs every few minutes.
struct JanitorService: Service {
    let database: any Database
    let repositories: Repositories
    let clock: WallClock
    let logger: Logger
    var interval: Duration = .seconds(300)
    /// How long ended authentications stay in the history.
    var historyRetention: Duration = .seconds(90 * 86400)

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await sweep()
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    func sweep() async {
        let now = clock.now()
        do {
            let repositories = self.repositories, retention = historyRetention
            try await database.transaction { sql in
                try await repositories.otp.purge(before: now - 86_400_000, in: sql)
                try await RateCounters().purge(before: now - 2 * 3_600_000, in: sql)
                try await RequestNonces.purge(before: now, in: sql)
                try await repositories.flows.purge(before: now - 86_400_000, in: sql)
                try await repositories.sessions.purge(endedBefore: now - retention.millis, in: sql)
                try await AuthChannelRepository(database: database).purge(endedBefore: now - historyRetention.millis, in: sql)
                try await repositories.authenticators.purgeChallenges(before: now, in: sql)
                try await repositories.passkeys.purgeChallenges(before: now, in: sql)
                // A lifetime after expiry (AppAttestService.purgeChallenges): until then a late use still gets 7403.
                try await repositories.appAttest.purgeChallenges(before: now - AppAttestService.defaultChallengeLifetime.millis, in: sql)
                try await repositories.appAttestEnrolment.purgeChallenges(before: now - AppAttestService.defaultChallengeLifetime.millis, in: sql)
                // A day after expiry: a late poll still gets expired_token, not invalid_grant.
                try await SQLCIBARepository().purge(before: now - 86_400_000, in: sql)
                try await SQLOIDCClientKeyRepository().purge(before: now, in: sql)
            }
            try await repositories.outbox.purge(sentBefore: now - 7 * 86_400_000)
            try await repositories.push.purge(settledBefore: now - 7 * 86_400_000)
            try await repositories.webhooks.purge(settledBefore: now - 30 * 86_400_000)
            try await repositories.oidc.purge(before: now - 86_400_000)
            try await repositories.oidcSessions.purge(before: now - 7 * 86_400_000)
        } catch {
            logger.warning("janitor sweep failed", metadata: ["error": .string(String(describing: error))])
        }
    }
}
