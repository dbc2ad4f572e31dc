import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import TesseraCore

/// The CIBA ping sender (CIBA Core 1.0 §10.2): an ``OutboxWorker`` over the ping outbox.
package typealias CIBAPingService = OutboxWorker<CIBAPings>

/// The ping outbox as its worker drains it, with the push outbox's guarantees: a ping is due once its request's
/// phone answer is final (or it expired), is claimed under a lease (one attempt chain across instances), POSTs
/// `{"auth_req_id": …}` with the client's `client_notification_token` as a bearer token to the endpoint registered for
/// the client, and is retried with backoff (at most 8 attempts). No redirect is followed. A client no longer in
/// ping mode drops its pings. The callbacks of the authentication channel (``CIBAChannelService``) go the same
/// way, with the other server's JWT as the bearer token and the outcome as the body.
package struct CIBAPings: DeliveryQueue {
    package let repository: any CIBAPingRepository
    package let clients: any CIBAClientRepository
    package let database: any Database
    package let sealer: SealedResultToken
    package let httpClient: HTTPClient
    package let timeout: Duration
    /// The authentication channels' settings (their callback URLs).
    package var channels: any CIBAChannelRepository = SQLCIBAChannelRepository()
    /// The outcome of a client's relying-party request now (nil: no such request).
    package let outcome: @Sendable (_ clientId: String, _ requestId: String) async throws -> AuthOutcome?
    /// Push mode: the body with the request's tokens or error, minted once (``CIBAService/pushBody(clientId:idHash:authReqId:)``);
    /// nil while the user has not answered.
    package var pushBody: (@Sendable (_ clientId: String, _ id: String, _ authReqId: String) async throws -> Data?)?

    package init(
        repository: any CIBAPingRepository, clients: any CIBAClientRepository, database: any Database, sealer: SealedResultToken, httpClient: HTTPClient,
        timeout: Duration, outcome: @escaping @Sendable (_ clientId: String, _ requestId: String) async throws -> AuthOutcome?
    ) {
        self.repository = repository
        self.outcome = outcome
        self.clients = clients
        self.database = database
        self.sealer = sealer
        self.httpClient = httpClient
        self.timeout = timeout
    }

    package var name: String { "CIBA ping outbox" }

    package func claimDue(limit: Int, claimant: String) async throws -> [CIBAPingDelivery] {
        try await repository.claimDue(limit: limit, claimant: claimant)
    }

    package func id(of delivery: CIBAPingDelivery) -> String { delivery.id }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await repository.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    package func record(_ fates: [(delivery: CIBAPingDelivery, fate: DeliveryFate)], logger: Logger) async throws {
        let repository = self.repository
        try await LeasedFates.record(
            fates, id: \.id, attempts: \.attempts, settle: { try await repository.settle(ids: $0, status: $1) },
            markFailed: { try await repository.markFailed(id: $0, attempts: $1, error: $2, retryAfter: $3) }
        )
    }

    /// What a ping carries, sealed at rest: the request's ID and the client's bearer token; in push mode, once minted,
    /// the body with the tokens (so that a retry sends the same tokens).
    package struct Sealed: Codable, Sendable {
        package var authReqId: String
        package var token: String
        package var payload: String?

        package init(authReqId: String, token: String, payload: String? = nil) {
            self.authReqId = authReqId
            self.token = token
            self.payload = payload
        }
    }

    /// One POST: a ping to the client's notification endpoint (§10.2), or an authentication channel's result to
    /// the other server's callback URL.
    package func attempt(_ delivery: CIBAPingDelivery, logger: Logger) async -> DeliveryFate {
        var logger = logger
        logger[metadataKey: "ping"] = .string(String(delivery.id.prefix(12)))
        let what = ["channel": "CIBA channel callback", "push": "CIBA push"][delivery.kind] ?? "CIBA ping"
        let endpoint: String, body: Data
        guard let text = delivery.sealed.flatMap({ sealer.open($0, channelId: delivery.id) }),
              let sealed = try? JSONDecoder().decode(Sealed.self, from: Data(text.utf8))
        else { return .refused(error: "the sealed notification cannot be opened") }
        do {
            switch delivery.kind {
            case "channel":
                let channels = self.channels
                guard let settings = try await database.read({ sql in try await channels.settings(clientId: delivery.client_id, in: sql) }),
                      let url = settings.callbackUrl
                else { return .dropped }
                let outcome = try await delivery.channel_id.asyncMap { try await self.outcome(delivery.client_id, $0) } ?? nil
                guard let status = CIBAChannelService.status(of: outcome) else { return .retry(error: "not final yet") }
                (endpoint, body) = (url, try JSONEncoder().encode(["status": status]))
            default:
                // A ping or a push, to the endpoint the client registered; a client no longer in that mode drops it.
                let clients = self.clients, mode = delivery.kind == "push" ? "push" : "ping"
                let settings = try await database.read { sql in try await clients.settings(clientId: delivery.client_id, in: sql) }
                guard settings.deliveryMode == mode, let url = settings.notificationEndpoint else { return .dropped }
                if mode == "ping" {
                    (endpoint, body) = (url, try JSONEncoder().encode(["auth_req_id": sealed.authReqId]))
                } else if let payload = sealed.payload {
                    (endpoint, body) = (url, Data(payload.utf8))
                } else {
                    guard let pushBody else { return .dropped }
                    guard let minted = try await pushBody(delivery.client_id, delivery.id, sealed.authReqId) else { return .retry(error: "not final yet") }
                    // Kept (sealed) before the first try, so that every retry sends the same tokens.
                    var kept = sealed
                    kept.payload = String(decoding: minted, as: UTF8.self)
                    let text = String(decoding: try JSONEncoder().encode(kept), as: UTF8.self)
                    try await repository.updateSealed(id: delivery.id, sealed: try sealer.seal(text, channelId: delivery.id))
                    (endpoint, body) = (url, minted)
                }
            }
        } catch {
            return .retry(error: "storage")
        }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "authorization", value: "Bearer " + sealed.token)
        request.headers.add(name: "user-agent", value: "Tessera-CIBA/1")
        request.body = .bytes(ByteBuffer(bytes: body))
        return await .post(request, through: httpClient, timeout: timeout, what: what, attempt: delivery.attempts, logger: logger)
    }
}
