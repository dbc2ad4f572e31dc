import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import TesseraCore

/// The back-channel logout sender: an ``OutboxWorker`` over the logout outbox.
package typealias BackchannelLogoutService = OutboxWorker<BackchannelLogouts>

/// A logout token (Back-Channel Logout 1.0 §2.4): whom and which session, the logout event, no nonce.
package struct LogoutTokenClaims: JWTPayload, Equatable {
    package var iss: IssuerClaim
    package var sub: SubjectClaim
    package var aud: AudienceClaim
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim
    package var jti: IDClaim
    package var sid: String
    package var events: [String: [String: String]]

    package static let event = "http://schemas.openid.net/event/backchannel-logout"

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// The logout outbox as its worker drains it, with the push outbox's guarantees: due logouts are
/// claimed under a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL: one attempt chain per logout across
/// instances), a failure is retried with backoff (2 s, 4 s, … at most 8 attempts), and each attempt
/// POSTs a freshly signed logout token with the same `jti` (the row's ID), so a client that saw one
/// attempt can tell a repeat. No redirect is followed.
package struct BackchannelLogouts: DeliveryQueue {
    package let repository: any OIDCSessionRepository
    package let settings: any OIDCRepository
    package let tokens: ResultTokens
    package let httpClient: HTTPClient
    package let clock: WallClock
    package let timeout: Duration
    /// How long a logout token is valid (§2.4: short).
    package var tokenLifetime: Duration = .seconds(120)

    package var name: String { "logout outbox" }

    package func claimDue(limit: Int, claimant: String) async throws -> [LogoutDelivery] {
        try await repository.claimDue(limit: limit, claimant: claimant)
    }

    package func id(of delivery: LogoutDelivery) -> String { delivery.id }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await repository.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    package func record(_ fates: [(delivery: LogoutDelivery, fate: DeliveryFate)], logger: Logger) async throws {
        let repository = self.repository
        try await LeasedFates.record(
            fates, id: \.id, attempts: \.attempts, settle: { try await repository.settle(ids: $0, status: $1) },
            markFailed: { try await repository.markFailed(id: $0, attempts: $1, error: $2, retryAfter: $3) }
        )
    }

    /// The signed logout token of a delivery, in the client's ID-token algorithm.
    package func logoutToken(_ delivery: LogoutDelivery, algorithm: SigningAlgorithm) async throws -> String {
        let now = Date(timeIntervalSince1970: TimeInterval(clock.now() / 1000))
        let claims = LogoutTokenClaims(
            iss: .init(value: tokens.issuer), sub: .init(value: delivery.user_key), aud: .init(value: [delivery.client_key]), iat: .init(value: now),
            exp: .init(value: now.addingTimeInterval(TimeInterval(tokenLifetime.components.seconds))), jti: .init(value: delivery.id),
            sid: delivery.session_id, events: [LogoutTokenClaims.event: [:]]
        )
        return try await tokens.sign(claims, algorithm: algorithm, type: "logout+jwt")
    }

    /// One POST of `logout_token` (§2.5); a client that no longer listens drops it.
    package func attempt(_ delivery: LogoutDelivery, logger: Logger) async -> DeliveryFate {
        var logger = logger
        logger[metadataKey: "logout"] = .string(delivery.id)
        let token: String
        do {
            guard let current = try await settings.settings(clientId: delivery.client_id), current.backchannelLogoutUri != nil else { return .dropped }
            token = try await logoutToken(delivery, algorithm: SigningAlgorithm(rawValue: current.idTokenSignedResponseAlg) ?? .es256)
        } catch {
            logger.warning("back-channel logout not signed", metadata: ["error": .string(String(describing: error))])
            return .retry(error: "storage")
        }
        var request = HTTPClientRequest(url: delivery.uri)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "user-agent", value: "Tessera-Logout/1")
        request.body = .bytes(ByteBuffer(string: "logout_token=" + token))
        // §2.8: a 400 means the client could not log out with this token; another try of the same would not help.
        return await .post(request, through: httpClient, timeout: timeout, what: "back-channel logout", attempt: delivery.attempts, logger: logger)
    }
}

extension OutboxWorker where Queue == BackchannelLogouts {
    /// The back-channel logout sender over `repository`, posting through `httpClient` (redirects disallowed).
    package convenience init(
        repository: any OIDCSessionRepository, settings: any OIDCRepository, tokens: ResultTokens, httpClient: HTTPClient, clock: WallClock,
        logger: Logger, pollInterval: Duration, timeout: Duration
    ) {
        let queue = BackchannelLogouts(repository: repository, settings: settings, tokens: tokens, httpClient: httpClient, clock: clock, timeout: timeout)
        self.init(queue: queue, logger: logger, pollInterval: pollInterval)
    }
}
