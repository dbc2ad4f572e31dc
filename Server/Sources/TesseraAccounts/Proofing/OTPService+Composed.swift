import TesseraCore
import TesseraHTTPKit
import TesseraStorage

extension OTPService {
    /// A send waiting for the statement of its batch (``OTPComposedSend``).
    package struct ComposedSendRequest: Sendable {
        package var send: OTPComposedSend
        /// The target's hourly key.
        package var targetKey: String
        package var message: OutboundMessage
        package var event: AuditEvent
    }

    /// On PostgreSQL, concurrent sends as one statement (``StatementBatcher``), in rounds of distinct gate keys: each
    /// answer is the send's outcome, or nil when it was not composed (an event a webhook subscribes to is appended by
    /// the send's transaction, which queues the webhook).
    static func composedSendBatcher(
        database: any Database, repository: any OTPRepository, outbox: any OutboxRepository, audit: any AuditLog,
        counters: RateCounters, settings: OTPSettings
    ) -> StatementBatcher<ComposedSendRequest, OTPComposedSend.Outcome?> {
        StatementBatcher { requests in
            try await database.withSQL { sql in
                var outcomes = [OTPComposedSend.Outcome?](repeating: nil, count: requests.count)
                for round in BatchRounds.split(requests.map(\.send.gateKey)) {
                    var members = round
                    var audited = try await audit.composedAppend(members.map { requests[$0].event }, in: sql)
                    if audited == nil {
                        var composable: [Int] = []
                        for index in members where try await audit.composedAppend([requests[index].event], in: sql) != nil {
                            composable.append(index)
                        }
                        members = composable
                        audited = members.isEmpty ? nil : try await audit.composedAppend(members.map { requests[$0].event }, in: sql)
                    }
                    guard let audited, let queued = try outbox.composedEnqueue(members.map { requests[$0].message }) else { continue }
                    let targetKeys = members.map { requests[$0].targetKey }
                    let counting = counters.limitedIncrement(
                        targetKeys, limit: settings.perTargetHourlyLimit, now: members.map { requests[$0].send.now }, window: .seconds(3600)
                    )
                    guard let results = try await repository.openChallenges(
                        members.map { requests[$0].send }, cooldown: settings.resendCooldown, targetCounts: counting, targetKeys: targetKeys,
                        writes: [queued, audited], in: sql
                    ) else { continue }
                    for (index, outcome) in zip(members, results) { outcomes[index] = outcome }
                    if results.contains(.opened) {
                        queued.committed()
                        audited.committed()
                    }
                }
                return outcomes
            }
        }
    }

    /// Refuses a send whose address or app has passed its hourly limit (after the target's, which is checked first).
    static func checkShared(_ counts: [String: Int], ipKey: String?, clientKey: String, settings: OTPSettings, retry: Int) throws {
        if let ipKey, counts[ipKey, default: 0] > settings.perIPHourlyLimit {
            throw AppError.otpIPRateLimited(retryAfter: retry)
        }
        if counts[clientKey, default: 0] > settings.perClientHourlyLimit {
            throw AppError.otpClientRateLimited(retryAfter: retry)
        }
    }

    /// The send in the statement of its batch (PostgreSQL, ``OTPComposedSend``): the message and the audit event are
    /// written by the statement that opens the challenge, and the app's and the address's counts are taken in memory.
    /// False (nothing done) when the send is not composed — SQLite, a shared count not yet known in memory, a shared
    /// limit passed (the transaction then decides, checking the target's limit first, as always), a webhook subscribed
    /// to `otp.sent`; refusals throw as the transaction's do, with the counts in memory taken back.
    func sendComposed(_ request: ComposedSendRequest, shared: [String], ipKey: String?, clientKey: String, retry: Int) async throws -> Bool {
        guard let composedSends else { return false }
        let now = request.send.now, window = Duration.seconds(3600)
        guard let counts = counters.incrementInMemory(shared: shared, now: now, window: window) else { return false }
        var opened = false
        defer { if !opened { counters.releaseInMemory(shared: shared, now: now, window: window) } }
        guard (try? Self.checkShared(counts, ipKey: ipKey, clientKey: clientKey, settings: settings, retry: retry)) != nil else { return false }
        switch try await composedSends.answer(request) {
        case .opened?:
            opened = true
            return true
        case nil:
            return false
        case .cooldown(let next)?:
            throw AppError.otpResendCooldown(retryAfter: Int(max(1, (next - now + 999) / 1000)))
        case .targetLimited?:
            throw AppError.otpTargetRateLimited(retryAfter: retry)
        }
    }
}
