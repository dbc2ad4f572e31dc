import Foundation
import Synchronization
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// The Vipaso-shaped completion-handler facade over a live server.
@Suite("SDK: customer facade")
struct TesseraCustomerTests {
    final class Box<T: Sendable>: Sendable {
        private let stored = Mutex<T?>(nil)
        var value: T? { stored.withLock { $0 } }
        func set(_ value: T) { stored.withLock { $0 = value } }
    }

    @Test("the three calls with completion handlers; an undeliverable code is .signup(.otp), a wrong code a server error")
    func facade() async throws {
        try await LiveServer.run(bundleId: "com.example.customer") { runtime, client, url in
            let tessera = TesseraClient(configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.customer", timeout: .sdkTestDeadline), keyStore: MemoryKeyStore())
            let customer = tessera.user.customer

            let bad = Box<Result<StartSignupResponse, CustomerError>>()
            await customer.startSignupFlow(request: StartSignupRequest(phoneNumber: "12")) { bad.set($0) }.wait()
            guard case .failure(.signup(.otp(let otpError))) = bad.value else { Issue.record("expected .signup(.otp), got \(String(describing: bad.value))"); return }
            #expect(otpError.code == .invalidPhoneNumber)

            let started = Box<Result<StartSignupResponse, CustomerError>>()
            await customer.startSignupFlow(request: StartSignupRequest(phoneNumber: "+41796660001")) { started.set($0) }.wait()
            let flowID = try #require(try started.value?.get().flowID)
            let wrong = Box<Result<VerifyPhoneNumberResponse, CustomerError>>()
            let code = try await LiveServer.latestCode(runtime, to: "+41796660001")
            await customer.verifyPhoneNumber(request: VerifyPhoneNumberRequest(flowID: flowID, otp: code == "000000" ? "111111" : "000000")) { wrong.set($0) }.wait()
            guard case .failure(.server(let wrongError)) = wrong.value else { Issue.record("expected a server error"); return }
            #expect(wrongError.code == .otpInvalid)
            let verified = Box<Result<VerifyPhoneNumberResponse, CustomerError>>()
            await customer.verifyPhoneNumber(request: VerifyPhoneNumberRequest(flowID: flowID, otp: code)) { verified.set($0) }.wait()
            #expect(try verified.value?.get().flowID == flowID)
            let finished = Box<Result<FinishSignupResponse, CustomerError>>()
            await customer.finishSignupFlow(request: FinishSignupRequest(
                flowID: flowID, password: nil, email: "cust@example.com", firstName: "Cu", lastName: "Stomer", phoneNumber: "+41796660001"
            )) { finished.set($0) }.wait()
            #expect(try finished.value?.get().flowID == flowID)
            #expect(tessera.isAuthenticated)
        }
    }
}
