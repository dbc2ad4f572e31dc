import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The registration flow's state machine: each wrong step has its own code, and a refused step
/// changes nothing.
@Suite("Registration flows")
struct RegistrationFlowTests {
    static func finish(_ phone: String, password: String? = "flowpass123", email: String = "a@example.com") -> FlowFinishRequest {
        FlowFinishRequest(password: password, email: email, firstName: "Ada", lastName: "Flow", phoneNumber: phone)
    }

    @Test("out-of-order steps, an expired flow, a reused flow and a mismatched phone each get their code", arguments: TestDatabase.kinds)
    func stateMachine(kind: TestDatabase) async throws {
        let clock = ManualClock(start: WallClock.nowMillis())
        try await withTestRuntime(kind, clock: clock.clock, configure: {
            $0.otp.resendCooldown = .zero
            $0.passwordScryptLogN = 10
        }) { runtime in
            let client = try await runtime.makeTestClient()
            let flows = runtime.flows
            let phone = "+41790000001"

            await expectCode(.flowUnknown) { _ = try await flows.verifyPhone(client: client, flowId: "flw_missing", code: "123456") }
            let flow = try await flows.create(client: client)
            #expect(flow.state == .created)
            // Another client cannot see the flow.
            let other = try await runtime.makeTestClient(bundle: "com.example.other")
            await expectCode(.flowUnknown) { _ = try await flows.get(client: other, flowId: flow.id) }
            // Verify and finish before any code was sent.
            await expectCode(.flowStepOutOfOrder) { _ = try await flows.verifyPhone(client: client, flowId: flow.id, code: "123456") }
            await expectCode(.flowStepOutOfOrder) { _ = try await flows.finish(client: client, flowId: flow.id, request: Self.finish(phone)) }

            #expect(try await flows.sendPhoneCode(client: client, flowId: flow.id, phoneNumber: phone, ip: nil).state == .otpSent)
            // Finish before the phone is verified.
            await expectCode(.flowStepOutOfOrder) { _ = try await flows.finish(client: client, flowId: flow.id, request: Self.finish(phone)) }
            // A wrong code is an OTP answer with the tries left; the flow stays where it was.
            let code = try await runtime.deliverAndReadCode(to: phone)
            let wrong = code == "000000" ? "111111" : "000000"
            await expectCode(.otpInvalid) { _ = try await flows.verifyPhone(client: client, flowId: flow.id, code: wrong) }
            #expect(try await flows.get(client: client, flowId: flow.id).state == .otpSent)
            #expect(try await flows.verifyPhone(client: client, flowId: flow.id, code: code).state == .verified)
            // Verify again, or send a code again, once verified.
            await expectCode(.flowStepOutOfOrder) { _ = try await flows.verifyPhone(client: client, flowId: flow.id, code: code) }
            await expectCode(.flowStepOutOfOrder) { _ = try await flows.sendPhoneCode(client: client, flowId: flow.id, phoneNumber: phone, ip: nil) }
            // Another phone number at the finish.
            await expectCode(.flowPhoneMismatch) {
                _ = try await flows.finish(client: client, flowId: flow.id, request: Self.finish("+41790000002"))
            }
            // A password that breaks the client's rules (default: 8+ characters with a letter and a digit).
            await expectCode(.passwordPolicyViolation) {
                _ = try await flows.finish(client: client, flowId: flow.id, request: Self.finish(phone, password: "000000"))
            }
            #expect(try await flows.get(client: client, flowId: flow.id).state == .verified)
            let grant = try await flows.finish(client: client, flowId: flow.id, request: Self.finish(phone))
            #expect(grant.sessionToken.hasPrefix("tss_"))
            #expect(grant.identity.phoneNumber == phone)
            // The flow is used up: every step now answers "already used".
            await expectCode(.flowAlreadyUsed) { _ = try await flows.finish(client: client, flowId: flow.id, request: Self.finish(phone)) }
            await expectCode(.flowAlreadyUsed) { _ = try await flows.verifyPhone(client: client, flowId: flow.id, code: code) }
            await expectCode(.flowAlreadyUsed) { _ = try await flows.sendPhoneCode(client: client, flowId: flow.id, phoneNumber: phone, ip: nil) }

            // The same phone again through a second flow: the identity exists, so the finish is a duplicate.
            let again = try await flows.create(client: client)
            _ = try await flows.sendPhoneCode(client: client, flowId: again.id, phoneNumber: phone, ip: nil)
            _ = try await flows.verifyPhone(client: client, flowId: again.id, code: try await runtime.deliverAndReadCode(to: phone))
            await expectCode(.duplicatePhoneNumber) {
                _ = try await flows.finish(client: client, flowId: again.id, request: Self.finish(phone, email: "b@example.com"))
            }

            // An expired flow (default lifetime 15 minutes).
            let late = try await flows.create(client: client)
            _ = try await flows.sendPhoneCode(client: client, flowId: late.id, phoneNumber: "+41790000003", ip: nil)
            let lateCode = try await runtime.deliverAndReadCode(to: "+41790000003")
            clock.advance(by: .seconds(901))
            await expectCode(.flowExpired) { _ = try await flows.verifyPhone(client: client, flowId: late.id, code: lateCode) }
            await expectCode(.flowExpired) { _ = try await flows.finish(client: client, flowId: late.id, request: Self.finish("+41790000003")) }
            let users = try await runtime.database.withSQL { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self)
            }
            #expect(users == 1)
        }
    }

    @Test("flows started per address are limited per hour", arguments: [TestDatabase.sqlite])
    func perIPLimit(kind: TestDatabase) async throws {
        // A manual clock in the middle of an hour: the limit's window is the clock's hour (no run across it).
        try await withTestRuntime(kind, clock: ManualClock(start: 1_800_001_800_000).clock, configure: { $0.flowPerIPHourlyLimit = 2 }) { runtime in
            let client = try await runtime.makeTestClient()
            _ = try await runtime.flows.create(client: client, ip: "10.2.2.2")
            _ = try await runtime.flows.create(client: client, ip: "10.2.2.2")
            await expectCode(.flowRateLimited) { _ = try await runtime.flows.create(client: client, ip: "10.2.2.2") }
            _ = try await runtime.flows.create(client: client, ip: "10.2.2.3")
        }
    }

    @Test("concurrent finishes of one verified flow create one identity", arguments: TestDatabase.kinds)
    func concurrentFinish(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.passwordScryptLogN = 10 }) { runtime in
            let client = try await runtime.makeTestClient()
            let flows = runtime.flows, phone = "+41790000009"
            let flow = try await flows.create(client: client)
            _ = try await flows.sendPhoneCode(client: client, flowId: flow.id, phoneNumber: phone, ip: nil)
            _ = try await flows.verifyPhone(client: client, flowId: flow.id, code: try await runtime.deliverAndReadCode(to: phone))
            let results = await withTaskGroup(of: ErrorCode?.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        do {
                            _ = try await flows.finish(client: client, flowId: flow.id, request: Self.finish(phone, email: "c\(index)@example.com"))
                            return nil
                        } catch let error as AppError { return error.code } catch { return .internalError }
                    }
                }
                return await group.reduce(into: [ErrorCode?]()) { $0.append($1) }
            }
            #expect(results.filter { $0 == nil }.count == 1)
            #expect(results.compactMap { $0 }.allSatisfy { $0 == .flowAlreadyUsed || $0 == .flowStepOutOfOrder }, "\(results)")
        }
    }
}
