import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// Password log-in limits and session expiry.
@Suite("Password log-in and sessions")
struct PasswordLoginTests {
    /// Creates a flow identity with `password` for `phone`.
    static func identity(_ runtime: TesseraRuntime, _ client: Client, phone: String, password: String?) async throws -> SessionGrant {
        let flows = runtime.flows
        let flow = try await flows.create(client: client)
        _ = try await flows.sendPhoneCode(client: client, flowId: flow.id, phoneNumber: phone, ip: nil)
        _ = try await flows.verifyPhone(client: client, flowId: flow.id, code: try await runtime.deliverAndReadCode(to: phone))
        return try await flows.finish(client: client, flowId: flow.id, request: FlowFinishRequest(
            password: password, email: "u\(phone.suffix(4))@example.com", firstName: "Pat", lastName: "Word", phoneNumber: phone
        ))
    }

    @Test("wrong passwords lock the identity after the limit, even when guessed concurrently; the lock ends", arguments: TestDatabase.kinds)
    func lockOut(kind: TestDatabase) async throws {
        let clock = ManualClock(start: WallClock.nowMillis())
        try await withTestRuntime(kind, clock: clock.clock, configure: { $0.passwordScryptLogN = 10 }) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await Self.identity(runtime, client, phone: "+41790000101", password: "right-pass-1")
            let login = runtime.passwordLogin
            let ok = try await login.login(client: client, identifier: "+41790000101", password: "right-pass-1", ip: "10.0.0.1")
            #expect(ok.identity.hasPassword)
            // An unknown identifier and an identity without a password answer like a wrong password.
            await expectCode(.passwordInvalid) { _ = try await login.login(client: client, identifier: "nobody@example.com", password: "x", ip: nil) }
            _ = try await Self.identity(runtime, client, phone: "+41790000102", password: nil)
            await expectCode(.passwordInvalid) { _ = try await login.login(client: client, identifier: "+41790000102", password: "x", ip: nil) }

            // 12 wrong passwords at once: exactly 5 are evaluated, the rest are refused as locked.
            let codes = await withTaskGroup(of: ErrorCode.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        do {
                            _ = try await login.login(client: client, identifier: "+41790000101", password: "wrong-\(index)", ip: nil)
                            return .success
                        } catch let error as AppError { return error.code } catch { return .internalError }
                    }
                }
                return await group.reduce(into: [ErrorCode]()) { $0.append($1) }
            }
            #expect(codes.filter { $0 == .passwordInvalid }.count == 5, "\(codes)")
            #expect(codes.filter { $0 == .passwordLocked }.count == 7, "\(codes)")
            // Locked: even the right password is refused, until the lock (15 minutes) is over.
            await expectCode(.passwordLocked) { _ = try await login.login(client: client, identifier: "+41790000101", password: "right-pass-1", ip: nil) }
            clock.advance(by: .seconds(901))
            _ = try await login.login(client: client, identifier: "+41790000101", password: "right-pass-1", ip: nil)
        }
    }

    @Test("password log-ins per address are limited per hour", arguments: [TestDatabase.sqlite])
    func perIPLimit(kind: TestDatabase) async throws {
        // A manual clock in the middle of an hour: the limit's window is the clock's hour (no run across it).
        try await withTestRuntime(
            kind, clock: ManualClock(start: 1_800_001_800_000).clock, configure: { $0.passwordScryptLogN = 10; $0.passwordPerIPHourlyLimit = 3 }
        ) { runtime in
            let client = try await runtime.makeTestClient()
            let login = runtime.passwordLogin
            for _ in 0..<3 {
                await expectCode(.passwordInvalid) { _ = try await login.login(client: client, identifier: "a@example.com", password: "x", ip: "10.1.1.1") }
            }
            await expectCode(.passwordRateLimited) { _ = try await login.login(client: client, identifier: "a@example.com", password: "x", ip: "10.1.1.1") }
            await expectCode(.passwordInvalid) { _ = try await login.login(client: client, identifier: "a@example.com", password: "x", ip: "10.1.1.2") }
        }
    }

    @Test("sessions expire when idle and at their lifetime; revoked and foreign sessions are refused", arguments: TestDatabase.kinds)
    func sessionExpiry(kind: TestDatabase) async throws {
        let clock = ManualClock(start: WallClock.nowMillis())
        try await withTestRuntime(kind, clock: clock.clock, configure: {
            $0.passwordScryptLogN = 10
            $0.sessionIdleTimeout = .seconds(3600)
            $0.sessionLifetime = .seconds(3 * 3600)
            $0.sessionPendingLifetime = .seconds(86400)  // these sessions never get a device key
        }) { runtime in
            let client = try await runtime.makeTestClient()
            let sessions = runtime.sessions
            let grant = try await Self.identity(runtime, client, phone: "+41790000201", password: "right-pass-1")
            let token = grant.sessionToken
            #expect(try await sessions.authenticate(token: token, client: client).deviceId == nil)
            let other = try await runtime.makeTestClient(bundle: "com.example.other")
            await expectCode(.sessionInvalid) { _ = try await sessions.authenticate(token: token, client: other) }
            await expectCode(.sessionInvalid) { _ = try await sessions.authenticate(token: "tss_unknown", client: client) }
            // Used every 50 minutes, it lives until its lifetime ends.
            for _ in 0..<3 {
                clock.advance(by: .seconds(3000))
                _ = try await sessions.authenticate(token: token, client: client)
            }
            clock.advance(by: .seconds(1900))
            await expectCode(.sessionExpired) { _ = try await sessions.authenticate(token: token, client: client) }
            // Idle for more than an hour.
            let idle = try await runtime.passwordLogin.login(client: client, identifier: "+41790000201", password: "right-pass-1", ip: nil)
            clock.advance(by: .seconds(3601))
            await expectCode(.sessionExpired) { _ = try await sessions.authenticate(token: idle.sessionToken, client: client) }
            // Revoked by its user: listed as revoked, refused afterwards; another user's session cannot be revoked.
            let live = try await runtime.passwordLogin.login(client: client, identifier: "+41790000201", password: "right-pass-1", ip: nil)
            let session = try await sessions.authenticate(token: live.sessionToken, client: client)
            let stranger = try await Self.identity(runtime, client, phone: "+41790000202", password: nil)
            let strangerSession = try await sessions.authenticate(token: stranger.sessionToken, client: client)
            await expectCode(.sessionUnknown) { try await sessions.revoke(id: session.id, userId: strangerSession.userId) }
            try await sessions.revoke(id: session.id, userId: session.userId)
            await expectCode(.sessionRevoked) { _ = try await sessions.authenticate(token: live.sessionToken, client: client) }
            await expectCode(.sessionUnknown) { try await sessions.revoke(id: session.id, userId: session.userId) }
            let listed = try await sessions.list(userId: session.userId, currentId: nil).sessions
            #expect(listed.count == 3)
            #expect(listed.first(where: { $0.id == session.id })?.revokedAt != nil)
        }
    }

    @Test("a session without a device key ends after 15 minutes; the janitor deletes ended sessions after 90 days", arguments: TestDatabase.kinds)
    func pendingSessionsAndPurge(kind: TestDatabase) async throws {
        let clock = ManualClock(start: WallClock.nowMillis())
        try await withTestRuntime(kind, clock: clock.clock, configure: { $0.passwordScryptLogN = 10 }) { runtime in
            let client = try await runtime.makeTestClient()
            let sessions = runtime.sessions
            _ = try await Self.identity(runtime, client, phone: "+41790000201", password: "right-pass-1")
            // A session that never registers a device key ends after its pending lifetime (15 minutes).
            let pending = try await runtime.passwordLogin.login(client: client, identifier: "+41790000201", password: "right-pass-1", ip: nil)
            clock.advance(by: .seconds(14 * 60))
            _ = try await sessions.authenticate(token: pending.sessionToken, client: client)
            clock.advance(by: .seconds(61))
            await expectCode(.sessionExpired) { _ = try await sessions.authenticate(token: pending.sessionToken, client: client) }
            // The janitor deletes sessions 90 days after they ended, not before.
            let count = { try await runtime.database.withSQL { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM sessions").first()?.decode(column: "n", as: Int.self) ?? 0
            } }
            let before = try await count()
            await runtime.janitor.sweep()
            #expect(try await count() == before)
            clock.advance(by: .seconds(121 * 86400))  // 30-day lifetime + 90 days
            await runtime.janitor.sweep()
            #expect(try await count() == 0)
        }
    }
}
