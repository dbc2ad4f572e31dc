import TesseraCore

/// The session side of the SDK as a protocol (the seed's `VipasoSDKProtocol`): what the delegate is
/// handed, and what an app's view models can depend on, so tests can replace ``TesseraClient`` with a
/// mock. No member returns the session token.
public protocol TesseraSDKProtocol: AnyObject, Sendable {
    /// Whether the user is logged in (a session bound to this device's key).
    var isAuthenticated: Bool { get }
    /// Told on every change of ``isAuthenticated``.
    var delegate: (any TesseraDelegate)? { get set }
    /// Starts a registration flow (the seed's `startSignupFlow`).
    func startSignupFlow(request: StartSignupRequest) async throws -> StartSignupResponse
    /// Verifies the flow's phone code (the seed's `verifyPhoneNumber`).
    func verifyPhoneNumber(request: VerifyPhoneNumberRequest) async throws -> VerifyPhoneNumberResponse
    /// Finishes the flow and logs in on this device (the seed's `finishSignupFlow`).
    func finishSignupFlow(request: FinishSignupRequest, device: DeviceDescription) async throws -> FinishSignupResponse
    /// Logs in with a password and binds this device.
    func login(identifier: String, password: String, device: DeviceDescription) async throws -> IdentityInfo
    /// The current session and its identity.
    func currentSession() async throws -> CurrentSession
    /// The user's sessions (never their tokens).
    func sessions() async throws -> [SessionInfo]
    /// Revokes one of the user's sessions.
    func revokeSession(id: String) async throws
    /// Logs out (the state turns to not authenticated even when the server cannot be reached).
    func logout() async
}

extension TesseraClient: TesseraSDKProtocol {}
