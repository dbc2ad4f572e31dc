import SQLKit
import TesseraCore
import TesseraStorage

extension OTPService {
    /// Refuses a send whose address or app has passed its hourly limit (after the target's, which is checked first).
    static func checkShared(_ counts: [String: Int], ipKey: String?, clientKey: String, settings: OTPSettings, retry: Int) throws {
        if let ipKey, counts[ipKey, default: 0] > settings.perIPHourlyLimit {
            throw AppError.otpIPRateLimited(retryAfter: retry)
        }
        if counts[clientKey, default: 0] > settings.perClientHourlyLimit {
            throw AppError.otpClientRateLimited(retryAfter: retry)
        }
    }

    /// The send in one statement (PostgreSQL, ``OTPComposedSend``): the message and the audit event are written by
    /// the statement that opens the challenge, and the app's and the address's counts are taken in memory. False
    /// (nothing done) when the send cannot be composed — SQLite, a webhook subscribed to `otp.sent`, a shared count
    /// not yet known in memory, or a shared limit passed (the transaction then decides, checking the target's limit
    /// first, as always); refusals throw as the transaction's do, with the counts in memory taken back.
    func sendComposed(
        _ send: OTPComposedSend, message: OutboundMessage, event: AuditEvent, shared: [String], ipKey: String?, clientKey: String, retry: Int
    ) async throws -> Bool {
        guard database.kind == .postgres else { return false }
        let repository = self.repository, counters = self.counters, outbox = self.outbox, audit = self.audit, settings = self.settings
        let window = Duration.seconds(3600)
        return try await database.withSQL { sql in
            guard let queued = try outbox.composedEnqueue(message), let audited = try await audit.composedAppend(event, in: sql),
                  let counts = counters.incrementInMemory(shared: shared, now: send.now, window: window, in: sql)
            else { return false }
            let outcome: OTPComposedSend.Outcome?
            do {
                if (try? Self.checkShared(counts, ipKey: ipKey, clientKey: clientKey, settings: settings, retry: retry)) == nil {
                    outcome = nil
                } else {
                    var send = send
                    send.writes = [queued, audited]
                    outcome = try await repository.openChallenge(send, in: sql)
                }
            } catch {
                counters.release(shared: shared, now: send.now, window: window, in: sql)
                throw error
            }
            switch outcome {
            case .opened?:
                queued.committed()
                audited.committed()
                return true
            case nil:
                counters.release(shared: shared, now: send.now, window: window, in: sql)
                return false
            case .cooldown(let next)?:
                counters.release(shared: shared, now: send.now, window: window, in: sql)
                throw AppError.otpResendCooldown(retryAfter: Int(max(1, (next - send.now + 999) / 1000)))
            case .targetLimited?:
                counters.release(shared: shared, now: send.now, window: window, in: sql)
                throw AppError.otpTargetRateLimited(retryAfter: retry)
            }
        }
    }
}
