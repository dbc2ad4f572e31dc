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
    final class MockSDK: TesseraSDKProtocol, Sendable {
        private struct State {
            var isAuthenticated = true
            weak var delegate: (any TesseraDelegate)?
        }

        private let state = Mutex(State())
        var isAuthenticated: Bool { state.withLock { $0.isAuthenticated } }
        var delegate: (any TesseraDelegate)? {
            get { state.withLock { $0.delegate } }
            set { state.withLock { $0.delegate = newValue } }
        }
        func startSignupFlow(request: StartSignupRequest) async throws -> StartSignupResponse { throw CancellationError() }
        func verifyPhoneNumber(request: VerifyPhoneNumberRequest) async throws -> VerifyPhoneNumberResponse { throw CancellationError() }
        func finishSignupFlow(request: FinishSignupRequest, device: DeviceDescription) async throws -> FinishSignupResponse { throw CancellationError() }
        func login(identifier: String, password: String, device: DeviceDescription) async throws -> IdentityInfo { throw CancellationError() }
        func currentSession() async throws -> CurrentSession { throw CancellationError() }
        func sessions() async throws -> [SessionInfo] { [] }
        func revokeSession(id: String) async throws {}
        func logout() async {
            let delegate = state.withLock { state in
                state.isAuthenticated = false
                return state.delegate
            }
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

/// The default key store keeps state across a relaunch (the seeds' `load…` values and the session).
@Suite("Default key store")
struct DefaultKeyStoreTests {
    @Test("a client given no key store keeps its state in a file store in the platform's data directory, one per server and client key")
    func persistentByDefault() throws {
        let configuration = TesseraClient.Configuration(
            serverURL: URL(string: "https://id.example.com")!, clientKey: "tck_\(UUID().uuidString)", bundleIdentifier: "com.example.app"
        )
        let client = TesseraClient(configuration: configuration, transport: OfflineTransport())
        let store = try #require(client.keyStore as? FileKeyStore)
        #expect(store.directory == FileKeyStore.standardDirectory(for: configuration))
        defer { try? FileManager.default.removeItem(at: store.directory) }
        try client.keyStore.saveState(DeviceState(deviceId: "dev_1", userKey: "u1", totpSecret: "JBSWY3DPEHPK3PXP", pushToken: "", localAuthType: .pin))
        // The app relaunches: a new client with the same configuration finds the state.
        #expect(try TesseraClient(configuration: configuration, transport: OfflineTransport()).loadDeviceID() == "dev_1")
        // Another client key of the same app has its own directory.
        var other = configuration
        other.clientKey = "tck_other_\(UUID().uuidString)"
        #expect(FileKeyStore.standardDirectory(for: other) != store.directory)
        #expect(try TesseraClient(configuration: other, transport: OfflineTransport()).loadDeviceID() == nil)
    }

    #if os(Linux)
    @Test("on Linux the directory follows XDG_DATA_HOME, else ~/.local/share")
    func xdg() {
        let configuration = TesseraClient.Configuration(serverURL: URL(string: "https://id.example.com")!, clientKey: "tck_1", bundleIdentifier: "com.example.app")
        let xdg = FileKeyStore.standardDirectory(for: configuration, environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
        #expect(xdg.path.hasPrefix("/data/tessera/com.example.app-"))
        let home = FileKeyStore.standardDirectory(for: configuration, environment: ["HOME": "/home/u"])
        #expect(home.path.hasPrefix("/home/u/.local/share/tessera/com.example.app-"))
    }
    #endif
}

/// A transport for tests that never reach a server: every request fails. The SDK package has no
/// transport of its own on Linux (Transports/ has async-http-client's).
struct OfflineTransport: HTTPTransport {
    struct Offline: Error {}

    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer { throw Offline() }

    func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
        throw Offline()
    }
}
