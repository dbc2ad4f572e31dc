import Crypto
import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// TOTP verification for the relying party on both engines (file SQLite and PostgreSQL; the SDK's
/// live-server tests cover the in-memory database): every answer comes from one conditional write.
@Suite("TOTP verification")
struct TOTPVerificationTests {
    /// A signed-up user `userKey` of a new client, and its device's TOTP generator.
    static func enrol(_ runtime: TesseraRuntime, userKey: String) async throws -> (client: Client, totp: TOTP) {
        let client = try await runtime.makeTestClient()
        let email = "\(userKey)@example.com"
        let request = SignUpFixtures.request(
            client, email: email, phone: "+41790000077", userKey: userKey, token: try await SignUpFixtures.disposeToken(runtime, client, email: email),
            deviceKey: P256.Signing.PrivateKey()
        )
        let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
        let response = try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone)
        return (client, try #require(TOTP(base32Secret: response.totpSecret)))
    }

    static func answer(_ runtime: TesseraRuntime, _ client: Client, userKey: String, code: String) async -> String {
        do {
            return try await runtime.totp.verify(client: client, request: TOTPVerifyRequest(userKey: userKey, code: code)).valid ? "accepted" : "not valid"
        } catch let error as AppError {
            return "\(error.code)" + (error.remainingAttempts.map { " \($0)" } ?? "")
        } catch {
            return "\(error)"
        }
    }

    @Test("64 parallel uses of one code: exactly one accepted, 63 refused as reused", arguments: TestDatabase.kinds)
    func reuseUnderConcurrency(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (client, totp) = try await Self.enrol(runtime, userKey: "parallel")
            let code = totp.code(forStep: manual.clock.now() / 1000 / 30)
            let answers = await withTaskGroup(of: String.self) { group in
                for _ in 0..<64 { group.addTask { await Self.answer(runtime, client, userKey: "parallel", code: code) } }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == "accepted" }.count == 1, "\(answers)")
            #expect(answers.filter { $0 == "\(ErrorCode.totpStepReused)" }.count == 63, "\(answers)")
        }
    }

    @Test("many acceptances in one statement: each decided as if alone and in order, a user's second one after its first", arguments: TestDatabase.kinds)
    func acceptsInOneBatch(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let state = SQLTOTPStateRepository(), now = runtime.clock.now()
            // totp_state rows belong to users: two real ones.
            let (_, _) = try await Self.enrol(runtime, userKey: "first")
            let (_, _) = try await Self.enrol(runtime, userKey: "second")
            let ids = try await runtime.database.read { sql in
                try await sql.raw("SELECT id FROM users ORDER BY created_at").all().map { try $0.decode(column: "id", as: String.self) }
            }
            try #require(ids.count == 2)
            let (a, b) = (ids[0], ids[1])
            let batch = [(a, 10), (b, 10), (a, 10), (a, 11), (a, 9)].map { TOTPAcceptance(userId: $0.0, step: Int64($0.1), now: now) }
            let answers = try await runtime.database.withSQL { try await state.accept(batch, maxFailures: 3, in: $0) }
            #expect(answers == [true, true, false, true, false])
            #expect(try await runtime.database.withSQL { try await state.accept([TOTPAcceptance(userId: b, step: 10, now: now)], maxFailures: 3, in: $0) } == [false])
            // A locked user accepts nothing, in a batch as alone.
            for _ in 0..<3 { _ = try await runtime.database.withSQL { try await state.recordFailure(userId: b, now: now, maxFailures: 3, in: $0) } }
            let locked = try await runtime.database.withSQL {
                try await state.accept([TOTPAcceptance(userId: b, step: 20, now: now), TOTPAcceptance(userId: a, step: 20, now: now)], maxFailures: 3, in: $0)
            }
            #expect(locked == [false, true])
        }
    }

    @Test("a wrong code's failure stays counted though the answer is a refusal; the tenth locks, even a right code then", arguments: TestDatabase.kinds)
    func failuresAreKept(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (client, totp) = try await Self.enrol(runtime, userKey: "guesser")
            let step = manual.clock.now() / 1000 / 30
            let right = totp.code(forStep: step)
            let wrong = Set((step - 1...step + 1).map(totp.code(forStep:)))
            let guess = (0..<1_000_000).lazy.map { String(format: "%06d", $0) }.first { !wrong.contains($0) }!
            var answers: [String] = []
            for _ in 0..<11 { answers.append(await Self.answer(runtime, client, userKey: "guesser", code: guess)) }
            #expect(answers == (0..<10).map { "\(ErrorCode.totpInvalid) \(9 - $0)" } + ["\(ErrorCode.totpLocked)"])
            #expect(await Self.answer(runtime, client, userKey: "guesser", code: right) == "\(ErrorCode.totpLocked)")
            #expect(await Self.answer(runtime, client, userKey: "nobody", code: right) == "\(ErrorCode.totpUserUnknown)")
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            let audit = try await runtime.database.read { sql in
                try await sql.raw("SELECT type FROM audit_log WHERE type LIKE 'totp.%'").all().map { try $0.decode(column: "type", as: String.self) }
            }
            #expect(audit.filter { $0 == "totp.failed" }.count == 10 && audit.filter { $0 == "totp.locked" }.count == 1, "\(audit)")
        }
    }
}
