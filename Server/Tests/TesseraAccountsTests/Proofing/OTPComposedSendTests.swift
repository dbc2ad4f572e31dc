import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// A send as one statement on PostgreSQL (``OTPComposedSend``): everything of it is written or nothing, as the
/// send's transaction did.
@Suite("OTP send in one statement")
struct OTPComposedSendTests {
    func count(_ runtime: TesseraRuntime, _ statement: String) async throws -> Int {
        try await runtime.database.withSQL { try await $0.raw(SQLQueryString(statement)).first()?.decode(column: "n", as: Int.self) } ?? -1
    }

    /// Opens `sends` (e-mail) in one composed statement, each with its outbox message and `otp.sent` event, the targets
    /// limited to `targetLimit` sends an hour and a 30-second cooldown; nil when the statement did not run.
    func open(_ runtime: TesseraRuntime, _ sends: [OTPComposedSend], targetLimit: Int) async throws -> [OTPComposedSend.Outcome]? {
        let outbox = runtime.repositories.outbox, audit = runtime.repositories.audit
        let keys = sends.map { "otp-target|\($0.binding.clientId)|email|\($0.binding.target)" }
        let messages = sends.map { OutboundMessage(id: "msg_\($0.challengeId)", channel: .email, recipient: $0.binding.target, subject: "s", body: "b") }
        let events = sends.map { AuditEvent("otp.sent", actor: "test", clientId: $0.binding.clientId, details: ["challenge": $0.challengeId]) }
        return try await runtime.database.withSQL { sql in
            let queued = try #require(try outbox.composedEnqueue(messages))
            let audited = try #require(try await audit.composedAppend(events, in: sql))
            return try await SQLOTPRepository().openChallenges(
                sends, cooldown: .seconds(30),
                targetCounts: RateCounters().limitedIncrement(keys, limit: targetLimit, now: sends.map(\.now), window: .seconds(3600)),
                targetKeys: keys, writes: [queued, audited], in: sql
            )
        }
    }

    @Test(
        "opened, refused by the cooldown (before the limit), refused by the target's limit: all of it written or none of it",
        arguments: TestDatabase.kinds.filter { $0 == .postgres }
    )
    func outcomes(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let binding = OTPBinding(clientId: client.id, channel: .email, target: "t@example.com", purpose: .signup)
            let gateKey = "\(client.id)|email|t@example.com", targetKey = "otp-target|\(client.id)|email|t@example.com"
            let start: Int64 = 1_800_001_800_000
            var sends = 0
            func send(at now: Int64) async throws -> OTPComposedSend.Outcome? {
                sends += 1
                let send = OTPComposedSend(
                    gateKey: gateKey, challengeId: "otp_c\(sends)", binding: binding, codeHash: "h\(sends)", now: now, expiresAt: now + 600_000
                )
                return try await open(runtime, [send], targetLimit: 2)?.first
            }
            func rows() async throws -> [Int] {
                try await runtime.repositories.audit.sequencer?.settle()
                return [
                    try await count(runtime, "SELECT COUNT(*) AS n FROM otp_challenges"),
                    try await count(runtime, "SELECT COUNT(*) AS n FROM otp_challenges WHERE consumed_at IS NULL"),
                    try await count(runtime, "SELECT COUNT(*) AS n FROM outbox"),
                    try await count(runtime, "SELECT COUNT(*) AS n FROM audit_log WHERE type = 'otp.sent'"),
                    try await count(runtime, "SELECT COALESCE(SUM(count), 0)::int AS n FROM rate_counters WHERE counter_key = '\(targetKey)'"),
                ]
            }
            func gate() async throws -> Int64? {
                try await runtime.database.withSQL {
                    try await $0.raw("SELECT next_allowed_at FROM otp_send_gates WHERE gate_key = \(bind: gateKey)").first()?
                        .decode(column: "next_allowed_at", as: Int64.self)
                }
            }
            #expect(try await send(at: start) == .opened)
            #expect(try await rows() == [1, 1, 1, 1, 1])
            #expect(try await send(at: start + 1_000) == .cooldown(nextAllowedAt: start + 30_000))
            #expect(try await rows() == [1, 1, 1, 1, 1])
            // The second send supersedes the first challenge and takes the target's last count.
            #expect(try await send(at: start + 31_000) == .opened)
            #expect(try await rows() == [2, 1, 2, 2, 2])
            // In its cooldown and at its limit: the cooldown answers, as the transaction checks the gate first.
            #expect(try await send(at: start + 32_000) == .cooldown(nextAllowedAt: start + 61_000))
            // Past the cooldown, at the limit: refused, nothing written, the gate not moved.
            #expect(try await send(at: start + 62_000) == .targetLimited)
            #expect(try await rows() == [2, 1, 2, 2, 2])
            #expect(try await gate() == start + 61_000)
        }
    }

    @Test(
        "a batch in one statement: each send its own outcome, in order; only the sends let through write",
        arguments: TestDatabase.kinds.filter { $0 == .postgres }
    )
    func batch(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let now: Int64 = 1_800_001_800_000
            func batch(_ targets: [String], at now: Int64) async throws -> [OTPComposedSend.Outcome]? {
                let sends = targets.enumerated().map { index, target in
                    OTPComposedSend(
                        gateKey: "\(client.id)|email|\(target)", challengeId: "otp_\(now)_\(index)",
                        binding: OTPBinding(clientId: client.id, channel: .email, target: target, purpose: .signup), codeHash: "h",
                        now: now, expiresAt: now + 600_000
                    )
                }
                return try await open(runtime, sends, targetLimit: 1)
            }
            // "a" opens and reaches its limit of one; "b" opens.
            #expect(try await batch(["a@example.com", "b@example.com"], at: now) == [.opened, .opened])
            // "a" in its cooldown, "b" past it and at its limit, "c" and "d" new.
            #expect(try await batch(["a@example.com", "c@example.com", "b@example.com", "d@example.com"], at: now + 1_000)
                == [.cooldown(nextAllowedAt: now + 30_000), .opened, .cooldown(nextAllowedAt: now + 30_000), .opened])
            #expect(try await batch(["b@example.com", "e@example.com"], at: now + 31_000) == [.targetLimited, .opened])
            try await runtime.repositories.audit.sequencer?.settle()
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM otp_challenges") == 5)
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM outbox") == 5)
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM audit_log WHERE type = 'otp.sent' AND client_id IS NOT NULL AND user_id IS NULL") == 5)
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM outbox WHERE recipient = 'b@example.com'") == 1)
        }
    }

    @Test(
        "the target's count stops at its limit even when its read was passed (a concurrent send took the last count)",
        arguments: TestDatabase.kinds.filter { $0 == .postgres }
    )
    func incrementStopsAtLimit(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let counting = RateCounters().limitedIncrement(["otp-target|k"], limit: 2, now: [1_800_001_800_000], window: .seconds(3600))
            var counted: [Int] = []
            for _ in 0..<3 {
                counted.append(try await runtime.database.withSQL { sql in
                    try await sql.raw("WITH counted AS (" + counting.increment("(SELECT 1)") + ") SELECT COUNT(*)::int AS n FROM counted").first()?
                        .decode(column: "n", as: Int.self) ?? -1
                })
            }
            #expect(counted == [1, 1, 0])
            #expect(try await count(runtime, "SELECT count AS n FROM rate_counters WHERE counter_key = 'otp-target|k'") == 2)
        }
    }

    @Test("concurrent sends: each target accepts its hourly limit, a refused send writes nothing", arguments: TestDatabase.kinds)
    func concurrentSends(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, clock: ManualClock(start: 1_800_001_800_000).clock, configure: {
            $0.otp.resendCooldown = .zero
            $0.otp.perTargetHourlyLimit = 3
        }) { runtime in
            let client = try await runtime.makeTestClient()
            // The first send counts the app's and the address's keys in the database; the others in memory, composed.
            _ = try await runtime.otp.send(client: client, channel: .email, target: "first@example.com", purpose: .signup, ip: "10.9.9.9")
            let outcomes = try await withThrowingTaskGroup(of: ErrorCode?.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        do {
                            _ = try await runtime.otp.send(
                                client: client, channel: .email, target: "t\(index % 8)@example.com", purpose: .signup, ip: "10.9.9.9"
                            )
                            return nil
                        } catch let error as AppError {
                            return error.code
                        }
                    }
                }
                return try await group.reduce(into: [ErrorCode?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 24)
            #expect(outcomes.filter { $0 == .otpTargetRateLimited }.count == 40)
            try await runtime.repositories.audit.sequencer?.settle()
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM otp_challenges") == 25)
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM outbox") == 25)
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM audit_log WHERE type = 'otp.sent'") == 25)
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM rate_counters WHERE counter_key LIKE 'otp-target|%' AND count = 3") == 8)
        }
    }

    @Test("a webhook subscribed to otp.sent gets every send's event (such a send is not composed: its transaction queues it)", arguments: TestDatabase.kinds)
    func subscribedWebhook(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.otp.resendCooldown = .zero }) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await runtime.webhookAdmin.create(
                clientKey: client.clientKey, CreateWebhookRequest(url: "http://127.0.0.1:9/hooks", eventTypes: ["otp.sent"])
            )
            for index in 0..<3 {
                _ = try await runtime.otp.send(client: client, channel: .email, target: "w\(index)@example.com", purpose: .signup, ip: "10.9.9.8")
            }
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM webhook_deliveries") == 3)
            #expect(try await count(runtime, "SELECT COUNT(*) AS n FROM outbox") == 3)
        }
    }
}
