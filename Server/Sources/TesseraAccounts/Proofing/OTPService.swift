import Logging
import SQLKit
import TesseraCore
import TesseraHTTPKit

/// Identity proofing by OTP (SPEC capability 1): send a code, verify it, hand out a single-use
/// dispose token bound to client, channel, target and purpose.
public struct OTPService: Sendable {
    package let database: any Database
    package let repository: any OTPRepository
    package let audit: any AuditLog
    /// The hourly counters (the app's and the address's counted in memory on PostgreSQL: ``SharedCounterBuffer``).
    package let counters: RateCounters
    package let outbox: any OutboxRepository
    package let courier: CourierService
    package let hasher: SecretHasher
    package let random: RandomSource
    package let clock: WallClock
    package let settings: OTPSettings
    package let templates: MessageTemplates
    package let logger: Logger
    /// On PostgreSQL, concurrent sends in one statement (nil on SQLite).
    let composedSends: StatementBatcher<ComposedSendRequest, OTPComposedSend.Outcome?>?

    package init(
        database: any Database,
        repository: any OTPRepository,
        audit: any AuditLog,
        outbox: any OutboxRepository,
        courier: CourierService,
        hasher: SecretHasher,
        random: RandomSource,
        clock: WallClock,
        settings: OTPSettings,
        templates: MessageTemplates,
        logger: Logger,
        counters: RateCounters = RateCounters()
    ) {
        self.counters = counters
        self.database = database
        self.repository = repository
        self.audit = audit
        self.outbox = outbox
        self.courier = courier
        self.hasher = hasher
        self.random = random
        self.clock = clock
        self.settings = settings
        self.templates = templates
        self.logger = logger
        composedSends = database.kind == .postgres ? Self.composedSendBatcher(
            database: database, repository: repository, outbox: outbox, audit: audit, counters: counters, settings: settings
        ) : nil
    }

    package static let codeDomain = "otp-code"
    package static let disposeDomain = "dispose-token"

    /// The answer to a wrong code (the seed's `onInvalidOTPNumber`), with the tries left.
    package static func invalidCode(remaining: Int) -> AppError {
        AppError.otpInvalid(remainingAttempts: remaining)
    }

    /// What a verify call ends in. A wrong code is an outcome, not a failure (the seed's
    /// `onInvalidOTPNumber`); failures (expired, locked) are thrown as ``AppError``.
    package enum Verification: Sendable, Equatable {
        case valid(disposeToken: String)
        case invalid(remainingAttempts: Int)
    }

    /// Accepts a send: checks limits, stores the code's keyed hash and queues the message, all in
    /// one transaction. The message is delivered by the courier afterwards.
    package func send(client: Client, channel: OTPChannel, target rawTarget: String, purpose: OTPPurpose, ip: String?) async throws -> SendOTPResponse {
        let target = try TargetNormalizer.normalize(rawTarget, channel: channel)
        guard courier.canDeliver(channel) else {
            throw AppError.otpChannelUnavailable(detail: "No delivery configured for \(channel.rawValue)")
        }
        let binding = OTPBinding(clientId: client.id, channel: channel, target: target, purpose: purpose)
        let code = random.numericCode(digits: settings.codeLength)
        let challengeId = random.identifier(prefix: "otp_")
        let rendered = templates.render(purpose: purpose, channel: channel, code: code, lifetime: settings.codeLifetime)
        let message = OutboundMessage(
            id: random.identifier(prefix: "msg_"), channel: channel, recipient: target, subject: rendered.subject, body: rendered.body
        )
        let now = clock.now()
        let settings = self.settings, repository = self.repository, counters = self.counters, outbox = self.outbox, audit = self.audit
        let codeHash = hasher.hash(challengeId + ":" + code, domain: Self.codeDomain)
        let expiresAt = now + settings.codeLifetime.millis
        let gateKey = "\(client.id)|\(channel.rawValue)|\(target)"
        // The hourly counters of this app and of this address are counted by every send of the app (or the
        // address): they are shared keys, which no send writes on PostgreSQL (each instance counts them in
        // memory and adds them to their rows in batches: SharedCounterBuffer). A refusal takes all of it back.
        let retry = Int(3600 - (now / 1000) % 3600)
        let targetKey = "otp-target|\(client.id)|\(channel.rawValue)|\(target)"
        let ipKey = ip.map { "otp-ip|\($0)" }
        let clientKey = "otp-client|\(client.id)"
        let shared = [clientKey] + (ipKey.map { [$0] } ?? [])
        let sent = AuditEvent(
            "otp.sent", actor: AuditEvent.client(client.clientKey), clientId: client.id,
            details: ["challenge": challengeId, "channel": channel.rawValue, "purpose": purpose.rawValue]
        )
        let composed = try await sendComposed(
            ComposedSendRequest(
                send: OTPComposedSend(
                    gateKey: gateKey, challengeId: challengeId, binding: binding, codeHash: codeHash, now: now, expiresAt: expiresAt
                ),
                targetKey: targetKey, message: message, event: sent
            ),
            shared: shared, ipKey: ipKey, clientKey: clientKey, retry: retry
        )
        if !composed {
            try await database.transaction { sql in
                if let next = try await repository.openChallenge(
                    gateKey: gateKey, cooldown: settings.resendCooldown, id: challengeId, binding: binding, codeHash: codeHash, now: now,
                    expiresAt: expiresAt, in: sql
                ) {
                    throw AppError.otpResendCooldown(retryAfter: Int(max(1, (next - now + 999) / 1000)))
                }
                try await outbox.enqueue(message, in: sql)
                let counts = try await counters.increment([targetKey], shared: shared, now: now, window: .seconds(3600), in: sql)
                do {
                    if counts[targetKey, default: 0] > settings.perTargetHourlyLimit {
                        throw AppError.otpTargetRateLimited(retryAfter: retry)
                    }
                    try Self.checkShared(counts, ipKey: ipKey, clientKey: clientKey, settings: settings, retry: retry)
                    try await audit.append(sent, in: sql)
                } catch {
                    // Refused (or failed) after counting: the transaction takes back the rest, this the counts in memory.
                    counters.release(shared: shared, now: now, window: .seconds(3600), in: sql)
                    throw error
                }
            }
        }
        courier.wake()
        logger.info("otp queued", metadata: ["challenge": .string(challengeId), "channel": .string(channel.rawValue)])
        return SendOTPResponse(
            sendTarget: target, expiresIn: Int(settings.codeLifetime.components.seconds),
            resendAfter: Int(settings.resendCooldown.components.seconds)
        )
    }

    private enum Attempt: Sendable {
        case matched(String)
        case wrong(Int)
        case refused(ChallengeState?)
    }

    /// Verifies a code. Each try is counted atomically before comparing, so no more than
    /// `maxAttempts` guesses are ever evaluated, whatever the concurrency.
    /// `codeField` names the request member carrying the code in the problem answer.
    package func verify(
        client: Client, channel: OTPChannel, target rawTarget: String, code: String, purpose: OTPPurpose, codeField: String = "otpNumber"
    ) async throws -> Verification {
        let target = try TargetNormalizer.normalize(rawTarget, channel: channel)
        guard code.count == settings.codeLength, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw AppError.invalidField(codeField, "\(codeField) must be \(settings.codeLength) digits")
        }
        let binding = OTPBinding(clientId: client.id, channel: channel, target: target, purpose: purpose)
        let now = clock.now()
        let settings = self.settings, repository = self.repository, hasher = self.hasher, random = self.random, audit = self.audit
        @Sendable func event(_ type: String, _ id: String, _ extra: [String: String] = [:]) -> AuditEvent {
            AuditEvent(
                type, actor: AuditEvent.client(client.clientKey), clientId: client.id,
                details: ["challenge": id, "channel": channel.rawValue, "purpose": purpose.rawValue].merging(extra) { $1 }
            )
        }
        let outcome: Attempt = try await database.transaction { sql in
            guard let id = try await repository.latestOpenChallenge(binding, in: sql) else { return .refused(nil) }
            guard let claimed = try await repository.claimAttempt(id: id, now: now, maxAttempts: settings.maxAttempts, in: sql) else {
                return .refused(try await repository.state(id: id, in: sql))
            }
            guard hasher.verify(id + ":" + code, domain: Self.codeDomain, against: claimed.codeHash) else {
                let remaining = settings.maxAttempts - claimed.attempts
                let failed = event("otp.failed", id, ["remaining": String(remaining)])
                // The wrong code that used the last try locks the challenge.
                try await audit.append(remaining > 0 ? [failed] : [failed, event("otp.locked", id)], in: sql)
                return .wrong(remaining)
            }
            guard try await repository.consume(id: id, now: now, in: sql) else { return .refused(nil) }
            let token = random.token(prefix: "tdt_")
            try await repository.insertDisposeToken(
                hash: hasher.hash(token, domain: Self.disposeDomain), binding: binding, now: now,
                expiresAt: now + settings.disposeTokenLifetime.millis, in: sql
            )
            try await audit.append(event("otp.verified", id), in: sql)
            return .matched(token)
        }
        switch outcome {
        case .matched(let token):
            return .valid(disposeToken: token)
        case .wrong(let remaining):
            return .invalid(remainingAttempts: remaining)
        case .refused(let state):
            if let state, state.attempts >= settings.maxAttempts, state.consumed_at == nil {
                throw AppError.otpTooManyAttempts()
            }
            throw AppError.otpExpired()
        }
    }

    /// What a consumed dispose token proved: this channel and target were verified.
    package struct VerifiedTarget: Sendable, Equatable {
        package var channel: OTPChannel
        package var target: String

        /// Whether the verified target is this e-mail address (e-mail channel) or phone number (SMS).
        package func matches(email: String, phone: String) -> Bool {
            target == (channel == .email ? email : phone)
        }
    }

    /// Uses a dispose token once for `purpose`, inside the caller's transaction (sign-up and
    /// re-registration consume it in the transaction that creates the account or device).
    package func consumeDisposeToken(_ token: String, client: Client, purpose: OTPPurpose, now: Int64, in sql: any SQLDatabase) async throws -> VerifiedTarget {
        try await consumeDisposeToken(hash: disposeTokenHash(token), client: client, purpose: purpose, now: now, in: sql)
    }

    /// The keyed hash under which a dispose token is stored (the registration flow keeps it).
    package func disposeTokenHash(_ token: String) -> String { hasher.hash(token, domain: Self.disposeDomain) }

    /// Uses the dispose token with this hash once for `purpose`, inside the caller's transaction.
    package func consumeDisposeToken(hash: String, client: Client, purpose: OTPPurpose, now: Int64, in sql: any SQLDatabase) async throws -> VerifiedTarget {
        guard let record = try await repository.consumeDisposeToken(hash: hash, clientId: client.id, purpose: purpose, now: now, in: sql),
              let channel = OTPChannel(rawValue: record.channel)
        else {
            throw AppError.disposeTokenInvalid()
        }
        return VerifiedTarget(channel: channel, target: record.target)
    }

    /// Uses a dispose token once for `purpose`, in a transaction of its own.
    package func consumeDisposeToken(_ token: String, client: Client, purpose: OTPPurpose) async throws -> VerifiedTarget {
        let now = clock.now()
        return try await database.transaction { sql in
            try await self.consumeDisposeToken(token, client: client, purpose: purpose, now: now, in: sql)
        }
    }
}
