import Foundation
import Synchronization
import Testing
import Tessera
import TesseraCore

/// The seed's `VipasoSDKProtocol`: an app's code written against ``TesseraSDKProtocol`` runs with a mock.
@Suite("SDK protocol")
struct SDKProtocolTests {
    /// A view model as an app writes it: it knows only the protocol.
    final class AccountModel: TesseraDelegate, Sendable {
        let sdk: any TesseraSDKProtocol
        let seen = Mutex([Bool]())
        init(sdk: any TesseraSDKProtocol) { self.sdk = sdk }
        func onAuthenticationStateChange(tessera: any TesseraSDKProtocol, authenticated: Bool) { seen.withLock { $0.append(authenticated) } }
        func signOut() async { await sdk.logout() }
    }

    /// A mock of the SDK that logs out at once and tells its delegate.
    final class MockSDK: TesseraSDKProtocol, @unchecked Sendable {
        var isAuthenticated = true
        weak var delegate: (any TesseraDelegate)?
        func startSignupFlow(request: StartSignupRequest) async throws -> StartSignupResponse { throw CancellationError() }
        func verifyPhoneNumber(request: VerifyPhoneNumberRequest) async throws -> VerifyPhoneNumberResponse { throw CancellationError() }
        func finishSignupFlow(request: FinishSignupRequest, device: DeviceDescription) async throws -> FinishSignupResponse { throw CancellationError() }
        func login(identifier: String, password: String, device: DeviceDescription) async throws -> IdentityInfo { throw CancellationError() }
        func currentSession() async throws -> CurrentSession { throw CancellationError() }
        func sessions() async throws -> [SessionInfo] { [] }
        func revokeSession(id: String) async throws {}
        func logout() async {
            isAuthenticated = false
            delegate?.onAuthenticationStateChange(tessera: self, authenticated: false)
        }
    }

    @Test("a view model written against TesseraSDKProtocol runs with a mock, and the delegate gets the mock")
    func mockable() async {
        let mock = MockSDK()
        let model = AccountModel(sdk: mock)
        mock.delegate = model
        await model.signOut()
        #expect(mock.isAuthenticated == false)
        #expect(model.seen.withLock { $0 } == [false])
    }
}
