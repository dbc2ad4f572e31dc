import Foundation
import Synchronization
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// The Vipaso seed's own example code (vipaso-customer-signup), adapted only where the migration guide
/// (Sources/Tessera/Tessera.docc/MigratingFromVipaso.md) says so: `vipaso` is a ``TesseraClient``,
/// `VipasoDelegate` is ``TesseraDelegate`` and its callback is `onAuthenticationStateChange(tessera:authenticated:)`.
@Suite("Seeds: Vipaso customer sign-up")
struct VipasoSeedTests {
    static let bundleId = "com.example.vipaso"

    /// The seed's `YourViewCoordinator`: the delegate, the flow id it carries between the steps, and what happened, in order.
    final class YourViewCoordinator: Sendable {
        struct State {
            var flowID: String?
            var events: [String] = []
        }

        let state = Mutex(State())

        func record(_ event: String) { state.withLock { $0.events.append(event) } }
        var events: [String] { state.withLock { $0.events } }
        var flowID: String? { state.withLock { $0.flowID } }
    }

    @Test("1. startSignupFlow, 2. verifyPhoneNumber, 3. finishSignupFlow, 4. the delegate: logged in once the device key is registered, out after logout")
    func customerSignup() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let tessera = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()
            )
            let coordinator = YourViewCoordinator()
            tessera.delegate = coordinator
            let phoneNumber = "+439999999999", password = "correct horse 42", email = "user.test@example.com"
            let firstName = "User", lastName = "Test"

            // 1. Starting the flow and sending the OTP code.
            let startRequest = StartSignupRequest(phoneNumber: phoneNumber)
            await tessera.user.customer.startSignupFlow(request: startRequest) { result in
                switch result {
                case .success(let response):
                    // Success: you need to use response.flowID in the next call
                    coordinator.state.withLock { $0.flowID = response.flowID }
                    coordinator.record("flow started")
                case .failure(let error):
                    switch error {
                    case .signup(.otp(let otpError)):
                        // Error: the OTP code could not be delivered
                        coordinator.record("otp not delivered \(otpError.code.rawValue)")
                    default:
                        // Error: any other error, server or network errors
                        coordinator.record("error \(error.tesseraError.code.rawValue)")
                    }
                }
            }.wait()
            let flowID = try #require(coordinator.flowID)

            // 2. Verifying the OTP code.
            let otp = try await LiveServer.latestCode(runtime, to: phoneNumber)
            let verifyRequest = VerifyPhoneNumberRequest(flowID: flowID, otp: otp)
            await tessera.user.customer.verifyPhoneNumber(request: verifyRequest) { result in
                switch result {
                case .success(let response):
                    // Success: returns the same flowID
                    coordinator.record(response.flowID == flowID ? "phone verified" : "phone verified, another flow \(response.flowID)")
                case .failure(let error):
                    // Error: any server or network error
                    coordinator.record("error \(error.tesseraError.code.rawValue)")
                }
            }.wait()

            // 3. Decorating the flow with user information and finalizing registration.
            let finishRequest = FinishSignupRequest(
                flowID: flowID,
                password: password,
                email: email,
                firstName: firstName,
                lastName: lastName,
                phoneNumber: phoneNumber
            )
            await tessera.user.customer.finishSignupFlow(request: finishRequest) { result in
                switch result {
                case .success(let response):
                    // Success: returns the same flowID
                    coordinator.record(response.flowID == flowID ? "signed up" : "signed up, another flow \(response.flowID)")
                case .failure(let error):
                    // Error: any server or network error
                    coordinator.record("error \(error.tesseraError.code.rawValue)")
                }
            }.wait()

            // 4. The delegate heard "logged in" once the device key was registered, before the finish's completion.
            #expect(coordinator.events == ["flow started", "phone verified", "authenticated", "signed up"])
            #expect(tessera.isAuthenticated)
            #expect(try tessera.loadDeviceID() != nil)  // the key pair the SDK generated and registered
            let session = try await tessera.currentSession()
            #expect(session.identity.phoneNumber == phoneNumber)
            #expect(session.identity.email == email)
            #expect(session.identity.hasPassword)

            // "… or manually calling logout": the delegate hears it.
            await tessera.logout()
            #expect(coordinator.events.last == "logged out")
            #expect(!tessera.isAuthenticated)
        }
    }

    @Test("the seed's error branch: a code that cannot be delivered is .signup(.otp(otpError)); a wrong code is any other error")
    func errorBranches() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let tessera = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()
            )
            let coordinator = YourViewCoordinator()
            tessera.delegate = coordinator
            for phoneNumber in ["12", "+439999999998"] {
                await tessera.user.customer.startSignupFlow(request: StartSignupRequest(phoneNumber: phoneNumber)) { result in
                    switch result {
                    case .success(let response):
                        coordinator.state.withLock { $0.flowID = response.flowID }
                        coordinator.record("flow started")
                    case .failure(let error):
                        switch error {
                        case .signup(.otp(let otpError)):
                            coordinator.record("otp not delivered \(otpError.code.rawValue)")
                        default:
                            coordinator.record("error \(error.tesseraError.code.rawValue)")
                        }
                    }
                }.wait()
            }
            let flowID = try #require(coordinator.flowID)
            let otp = try await LiveServer.latestCode(runtime, to: "+439999999998")
            let wrong = otp == "000000" ? "111111" : "000000"
            await tessera.user.customer.verifyPhoneNumber(request: VerifyPhoneNumberRequest(flowID: flowID, otp: wrong)) { result in
                switch result {
                case .success:
                    coordinator.record("phone verified")
                case .failure(let error):
                    coordinator.record("error \(error.tesseraError.code.rawValue)")
                }
            }.wait()
            #expect(coordinator.events == [
                "otp not delivered \(ErrorCode.invalidPhoneNumber.rawValue)", "flow started", "error \(ErrorCode.otpInvalid.rawValue)",
            ])
            #expect(!tessera.isAuthenticated)
        }
    }
}

extension VipasoSeedTests.YourViewCoordinator: TesseraDelegate {
    func onAuthenticationStateChange(tessera: any TesseraSDKProtocol, authenticated: Bool) {
        if authenticated {
            // Your user is logged in
            record("authenticated")
        } else {
            // Your user got logged out (can be automatic after 401 or manually calling logout)
            record("logged out")
        }
    }
}
