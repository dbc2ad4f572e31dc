import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

@Suite("OTP")
struct OTPServiceTests {
    func expectCode(_ code: ErrorCode, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected error \(code), got success")
        } catch let error as AppError {
            #expect(error.code == code)
        } catch {
            Issue.record("expected AppError \(code), got \(error)")
        }
    }

    @Test("send, verify, dispose token; the same code twice fails", arguments: TestDatabase.kinds)
    func sendAndVerify(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let answer = try await runtime.otp.send(client: client, channel: .email, target: " Alice@Example.COM ", purpose: .signup, ip: "127.0.0.1")
            #expect(answer.sendTarget == "alice@example.com")
            let code = try await runtime.deliverAndReadCode(to: "alice@example.com")
            #expect(code.count == 6)
            let result = try await runtime.otp.verify(client: client, channel: .email, target: "alice@example.com", code: code, purpose: .signup)
            guard case .valid(let token) = result else { Issue.record("expected valid, got \(result)"); return }
            #expect(token.hasPrefix("tdt_"))
            await expectCode(.otpExpired) {
                _ = try await runtime.otp.verify(client: client, channel: .email, target: "alice@example.com", code: code, purpose: .signup)
            }
            // The dispose token works once, for its client and purpose only.
            await expectCode(.disposeTokenInvalid) { _ = try await runtime.otp.consumeDisposeToken(token, client: client, purpose: .recovery) }
            let bound = try await runtime.otp.consumeDisposeToken(token, client: client, purpose: .signup)
            #expect(bound.channel == .email && bound.target == "alice@example.com")
            await expectCode(.disposeTokenInvalid) { _ = try await runtime.otp.consumeDisposeToken(token, client: client, purpose: .signup) }
        }
    }

    @Test("codes are stored only as keyed hashes", arguments: TestDatabase.kinds)
    func codeNotStoredInClear(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await runtime.otp.send(client: client, channel: .email, target: "hash@example.com", purpose: .signup, ip: nil)
            let code = try await runtime.deliverAndReadCode(to: "hash@example.com")
            let dump = try await runtime.database.withSQL { sql in
                var text = ""
                for table in ["otp_challenges", "outbox", "dispose_tokens"] {
                    for row in try await sql.raw("SELECT * FROM \(unsafeRaw: table)").all() {
                        for column in row.allColumns { text += ((try? row.decode(column: column, as: String?.self)) ?? nil) ?? "" }
                    }
                }
                return text
            }
            #expect(!dump.isEmpty)
            #expect(!dump.contains(code))
        }
    }

    @Test("five wrong tries lock the code, even against the right one", arguments: TestDatabase.kinds)
    func lockAfterFiveWrong(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await runtime.otp.send(client: client, channel: .sms, target: "+41 44 668 18 00", purpose: .signup, ip: nil)
            let code = try await runtime.deliverAndReadCode(to: "+41446681800")
            let wrong = code == "000000" ? "111111" : "000000"
            for expected in stride(from: 4, through: 0, by: -1) {
                let result = try await runtime.otp.verify(client: client, channel: .sms, target: "+41446681800", code: wrong, purpose: .signup)
                #expect(result == .invalid(remainingAttempts: expected))
            }
            await expectCode(.otpTooManyAttempts) {
                _ = try await runtime.otp.verify(client: client, channel: .sms, target: "+41446681800", code: code, purpose: .signup)
            }
        }
    }

    @Test("concurrent guesses never exceed the try limit", arguments: TestDatabase.kinds)
    func concurrentGuessesBounded(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await runtime.otp.send(client: client, channel: .email, target: "race@example.com", purpose: .signup, ip: nil)
            let code = try await runtime.deliverAndReadCode(to: "race@example.com")
            let wrong = code == "999999" ? "888888" : "999999"
            let otp = runtime.otp
            let invalids = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<25 {
                    group.addTask {
                        if case .invalid = try? await otp.verify(client: client, channel: .email, target: "race@example.com", code: wrong, purpose: .signup) {
                            return true
                        }
                        return false
                    }
                }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(invalids == 5)
        }
    }

    @Test("a code expires after its lifetime", arguments: TestDatabase.kinds)
    func expiry(kind: TestDatabase) async throws {
        let manual = ManualClock()
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await runtime.otp.send(client: client, channel: .email, target: "late@example.com", purpose: .signup, ip: nil)
            let code = try await runtime.deliverAndReadCode(to: "late@example.com")
            manual.advance(by: .seconds(301))
            await expectCode(.otpExpired) {
                _ = try await runtime.otp.verify(client: client, channel: .email, target: "late@example.com", code: code, purpose: .signup)
            }
        }
    }

    @Test("resend cooldown, then a new code replaces the old one", arguments: TestDatabase.kinds)
    func cooldownAndSupersede(kind: TestDatabase) async throws {
        let manual = ManualClock()
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await runtime.otp.send(client: client, channel: .email, target: "bob@example.com", purpose: .signup, ip: nil)
            let first = try await runtime.deliverAndReadCode(to: "bob@example.com")
            do {
                _ = try await runtime.otp.send(client: client, channel: .email, target: "bob@example.com", purpose: .signup, ip: nil)
                Issue.record("cooldown not enforced")
            } catch let error as AppError {
                #expect(error.code == .otpResendCooldown)
                #expect(error.retryAfter == 30)
            }
            manual.advance(by: .seconds(31))
            _ = try await runtime.otp.send(client: client, channel: .email, target: "bob@example.com", purpose: .signup, ip: nil)
            let second = try await runtime.deliverAndReadCode(to: "bob@example.com")
            if first != second {
                // The replaced code no longer matches: it counts as a wrong try against the new one.
                let stale = try await runtime.otp.verify(client: client, channel: .email, target: "bob@example.com", code: first, purpose: .signup)
                #expect(stale == .invalid(remainingAttempts: 4))
            }
            let result = try await runtime.otp.verify(client: client, channel: .email, target: "bob@example.com", code: second, purpose: .signup)
            guard case .valid = result else { Issue.record("newest code refused: \(result)"); return }
        }
    }

    @Test("hourly limits per target, per IP and per client", arguments: TestDatabase.kinds)
    func hourlyLimits(kind: TestDatabase) async throws {
        // A manual clock in the middle of an hour: the limits' window is the clock's hour (no run across it).
        try await withTestRuntime(kind, clock: ManualClock(start: 1_800_001_800_000).clock, configure: {
            $0.otp.resendCooldown = .zero
            $0.otp.perTargetHourlyLimit = 2
            $0.otp.perIPHourlyLimit = 3
            $0.otp.perClientHourlyLimit = 4
        }) { runtime in
            let client = try await runtime.makeTestClient()
            func send(_ target: String, ip: String) async throws {
                _ = try await runtime.otp.send(client: client, channel: .email, target: target, purpose: .signup, ip: ip)
            }
            try await send("t1@example.com", ip: "10.0.0.1")
            try await send("t1@example.com", ip: "10.0.0.1")
            await expectCode(.otpTargetRateLimited) { try await send("t1@example.com", ip: "10.0.0.1") }
            try await send("t2@example.com", ip: "10.0.0.1")
            await expectCode(.otpIPRateLimited) { try await send("t3@example.com", ip: "10.0.0.1") }
            try await send("t3@example.com", ip: "10.0.0.2")
            await expectCode(.otpClientRateLimited) { try await send("t4@example.com", ip: "10.0.0.3") }
            // The counters are taken after the send's own rows: a refused send leaves none of them (no challenge,
            // no message, no audit entry), and did not end the target's live challenge.
            func count(_ statement: String) async throws -> Int? {
                try await runtime.database.withSQL { try await $0.raw(SQLQueryString(statement)).first()?.decode(column: "n", as: Int.self) }
            }
            #expect(try await count("SELECT COUNT(*) AS n FROM otp_challenges") == 4)
            #expect(try await count("SELECT COUNT(*) AS n FROM outbox") == 4)
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            #expect(try await count("SELECT COUNT(*) AS n FROM audit_log WHERE type = 'otp.sent'") == 4)
            #expect(try await count("SELECT COUNT(*) AS n FROM otp_challenges WHERE target = 't1@example.com' AND consumed_at IS NULL") == 1)
        }
    }

    /// An ``OTPService`` whose codes, gates and dispose tokens live in an ``InMemoryOTPRepository``; the
    /// runtime (on SQLite) only lends it the audit log, the outbox, the courier and the transactions.
    static func serviceOnDouble(_ runtime: TesseraRuntime, clock: WallClock) -> (OTPService, InMemoryOTPRepository) {
        let repository = InMemoryOTPRepository()
        let service = OTPService(
            database: runtime.database, repository: repository, audit: runtime.repositories.audit, outbox: runtime.repositories.outbox,
            courier: runtime.courier, hasher: runtime.keys.hasher, random: .system, clock: clock, settings: runtime.configuration.otp,
            templates: runtime.configuration.templates, logger: TestDatabase.logger
        )
        return (service, repository)
    }

    @Test("on the in-memory repository: each wrong code counts a try, and the right code after the last try is refused")
    func triesOnTheDouble() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock) { runtime in
            let (otp, repository) = Self.serviceOnDouble(runtime, clock: manual.clock)
            let client = try await runtime.makeTestClient()
            _ = try await otp.send(client: client, channel: .email, target: "double@example.com", purpose: .signup, ip: nil)
            let code = try await runtime.deliverAndReadCode(to: "double@example.com")
            let id = try #require(repository.challengeStates().keys.first)
            #expect(repository.challengeStates().count == 1)
            // The code is in the double alone: the runtime's own service, on the SQL repository, knows no code for the target.
            await expectCode(.otpExpired) {
                _ = try await runtime.otp.verify(client: client, channel: .email, target: "double@example.com", code: code, purpose: .signup)
            }
            let wrong = code == "000000" ? "111111" : "000000"
            for remaining in stride(from: 4, through: 0, by: -1) {
                let result = try await otp.verify(client: client, channel: .email, target: "double@example.com", code: wrong, purpose: .signup)
                #expect(result == .invalid(remainingAttempts: remaining))
                #expect(repository.challengeStates()[id]?.attempts == 5 - remaining)
            }
            await expectCode(.otpTooManyAttempts) {
                _ = try await otp.verify(client: client, channel: .email, target: "double@example.com", code: code, purpose: .signup)
            }
            // Refused without counting or using the challenge: it stays locked.
            let state = try #require(repository.challengeStates()[id])
            #expect(state.attempts == 5 && state.consumed_at == nil)
        }
    }

    @Test("on the in-memory repository: the resend cooldown, the newest code replacing the old, a dispose token used once")
    func sendAndVerifyOnTheDouble() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock) { runtime in
            let (otp, repository) = Self.serviceOnDouble(runtime, clock: manual.clock)
            let client = try await runtime.makeTestClient()
            _ = try await otp.send(client: client, channel: .sms, target: "+41 44 668 18 00", purpose: .recovery, ip: nil)
            let first = try await runtime.deliverAndReadCode(to: "+41446681800")
            do {
                _ = try await otp.send(client: client, channel: .sms, target: "+41446681800", purpose: .recovery, ip: nil)
                Issue.record("cooldown not enforced")
            } catch let error as AppError {
                #expect(error.code == .otpResendCooldown)
                #expect(error.retryAfter == 30)
            }
            manual.advance(by: .seconds(30))
            _ = try await otp.send(client: client, channel: .sms, target: "+41446681800", purpose: .recovery, ip: nil)
            let second = try await runtime.deliverAndReadCode(to: "+41446681800")
            // The second send ended the first challenge: one is used (superseded), one open.
            let states = repository.challengeStates().values
            #expect(states.count == 2)
            #expect(states.filter { $0.consumed_at == manual.clock.now() }.count == 1)
            #expect(states.filter { $0.consumed_at == nil }.count == 1)
            if first != second {
                let stale = try await otp.verify(client: client, channel: .sms, target: "+41446681800", code: first, purpose: .recovery)
                #expect(stale == .invalid(remainingAttempts: 4))
            }
            let result = try await otp.verify(client: client, channel: .sms, target: "+41446681800", code: second, purpose: .recovery)
            guard case .valid(let token) = result else { Issue.record("newest code refused: \(result)"); return }
            await expectCode(.otpExpired) {
                _ = try await otp.verify(client: client, channel: .sms, target: "+41446681800", code: second, purpose: .recovery)
            }
            await expectCode(.disposeTokenInvalid) { _ = try await otp.consumeDisposeToken(token, client: client, purpose: .signup) }
            let bound = try await otp.consumeDisposeToken(token, client: client, purpose: .recovery)
            #expect(bound.channel == .sms && bound.target == "+41446681800")
            await expectCode(.disposeTokenInvalid) { _ = try await otp.consumeDisposeToken(token, client: client, purpose: .recovery) }
        }
    }

    @Test("targets are validated", arguments: [
        ("not-an-email", OTPChannel.email, ErrorCode.invalidEmail), ("a@b", .email, .invalidEmail), ("a..b@example.com", .email, .invalidEmail),
        ("a@example.com Bcc: x@example.com", .email, .invalidEmail), ("0041446681800", .sms, .invalidPhoneNumber),
        ("+0123456789", .sms, .invalidPhoneNumber), ("+1234", .sms, .invalidPhoneNumber), ("+12345678901234567", .sms, .invalidPhoneNumber),
    ])
    func targetValidation(target: String, channel: OTPChannel, code: ErrorCode) async throws {
        #expect(throws: AppError.self) { try TargetNormalizer.normalize(target, channel: channel) }
        do { _ = try TargetNormalizer.normalize(target, channel: channel) } catch let error as AppError { #expect(error.code == code) }
    }

    @Test("targets are trimmed of spaces and tabs (not of line breaks) as Foundation trims them, and lower-cased")
    func trimming() {
        for raw in ["A@Example.com", " a@example.com", "a@example.com\t", "\u{00A0}\u{2003}a@example.com ", "\ta@example.com \t", "a@example.com\n", " ", ""] {
            #expect(TargetNormalizer.trimmed(raw) == raw.trimmingCharacters(in: .whitespaces), "\(raw.debugDescription)")
        }
        #expect(TargetNormalizer.normalizeEmail(" \tAda@Example.COM\u{2003}") == "ada@example.com")
        #expect(TargetNormalizer.normalizePhone(" +41 44 668 18 00\t") == "+41446681800")
    }

    @Test("templates: each known {{name}} is replaced, anything else kept, as Foundation's replacingOccurrences did")
    func templateFill() {
        let values = ["code": "042917", "minutes": "10"]
        let texts = [
            MessageTemplates().signup.body, MessageTemplates().recovery.subject, MessageTemplates().recovery.sms, "", "{{", "}}", "{{}}",
            "{{code}}{{code}}", "{{{code}}}", "{{ code }}", "{{minutes}} {{unknown}} {{code", "é {{code}} ü — {{minutes}}✓", "{{co{{code}}de}}",
            "{{code}}}}{{minutes}}", "no placeholders at all", "{{minutes}}{{", "{{{{code}}}}",
        ]
        for text in texts {
            let foundation = text.replacingOccurrences(of: "{{code}}", with: values["code"]!).replacingOccurrences(of: "{{minutes}}", with: values["minutes"]!)
            #expect(MessageTemplates.fill(text, values) == foundation, "\(text.debugDescription)")
        }
    }

    @Test("header injection in an address is refused")
    func headerInjection() {
        #expect(TargetNormalizer.normalizeEmail("a@example.com\r\nBcc: x@example.com") == nil)
        #expect(TargetNormalizer.normalizeEmail("a@example.com\n") == nil)
    }

    @Test("codes are uniform six-digit strings")
    func codeShape() {
        let random = RandomSource.system
        let codes = (0..<2000).map { _ in random.numericCode(digits: 6) }
        #expect(codes.allSatisfy { $0.count == 6 && $0.allSatisfy(\.isNumber) })
        #expect(Set(codes).count > 1900)
        // Leading zeros are kept (a fixed source that yields 42 gives "000042").
        let fixed = RandomSource { count in Array([42, 0, 0, 0].prefix(count)) }
        #expect(fixed.numericCode(digits: 6) == "000042")
    }
}
