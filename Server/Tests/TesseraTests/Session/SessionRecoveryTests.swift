import Foundation
import Testing
@testable import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// A finish whose last step (the device key) did not happen: the SDK keeps the session, reports
/// not authenticated, and `completeDeviceRegistration()` finishes the job later.
@Suite("SDK: unfinished device registration")
struct SessionRecoveryTests {
    @Test("a pending session is not a log-in; completing the device key makes it one, once")
    func completeLater() async throws {
        try await LiveServer.run(bundleId: "com.example.pending") { runtime, client, url in
            let keyStore = MemoryKeyStore()
            let tessera = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.pending", timeout: .sdkTestDeadline), keyStore: keyStore
            )
            // The flow up to the finish, with the device-key step left out (as if the app died there).
            let flow = try await tessera.startSignupFlow(request: StartSignupRequest(phoneNumber: "+41797770001"))
            _ = try await tessera.verifyPhoneNumber(request: VerifyPhoneNumberRequest(
                flowID: flow.flowID, otp: try await LiveServer.latestCode(runtime, to: "+41797770001")
            ))
            let grant: SessionGrant = try await tessera.call(
                "POST", "/v1/flows/registration/\(flow.flowID)/finish",
                body: FlowFinishRequest(password: nil, email: "pending@example.com", firstName: "Pen", lastName: "Ding", phoneNumber: "+41797770001")
            )
            try keyStore.saveSession(StoredSession(token: grant.sessionToken, deviceBound: false, identityId: grant.identity.id))

            // A new client over the same store (the app restarted): not logged in, and session calls need the device key.
            let restarted = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.pending", timeout: .sdkTestDeadline), keyStore: keyStore
            )
            #expect(restarted.isAuthenticated == false)
            do {
                _ = try await restarted.sessions()
                Issue.record("a session without a device key was accepted")
            } catch let error as TesseraError {
                #expect(error.code == .sessionDeviceRequired)
            }
            let deviceId = try await restarted.completeDeviceRegistration()
            #expect(restarted.isAuthenticated)
            #expect(try await restarted.currentSession().session.deviceId == deviceId)
            do {
                try await restarted.completeDeviceRegistration()
                Issue.record("a second device key was registered for the session")
            } catch let error as TesseraError {
                #expect(error.code == .conflict)
            }
        }
    }
}
