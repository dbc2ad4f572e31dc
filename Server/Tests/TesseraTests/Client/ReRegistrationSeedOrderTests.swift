import Foundation
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// Device re-registration called exactly in the BSA seed's order ("Device Re-registration" i–iv):
/// `requestSendOTPNumberForRegisterDevice`, then `verifyOTPNumber` with the seed's arguments (no
/// purpose), then `requestRegisterDevice` with every field of `ExistingUserData` filled, the
/// local-auth type being the one the first call returned.
@Suite("Re-registration in the seed's order")
struct ReRegistrationSeedOrderTests {
    static let bundleId = "dev.tessera.reregistration"

    /// Authenticates as any type (the seed's step iii is the app's; this stands for a successful prompt).
    struct AcceptingAuthenticator: LocalAuthenticator {
        func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult { LocalAuthResult() }
    }

    @Test("send, verify without a purpose, register with the returned type: the new device works; a wrong type, name or app is refused and the token stays usable")
    func seedOrder() async throws {
        // The sign-up and recovery codes go to the same address seconds apart.
        try await LiveServer.run(bundleId: Self.bundleId, configure: { $0.otp.resendCooldown = .zero }) { runtime, client, url in
            let old = try await LiveServer.enrol(runtime, client, url, userKey: "rita", bundleId: Self.bundleId)
            let oldDevice = try #require(try old.loadDeviceID())
            let email = "rita@example.com"
            let tessera = TesseraClient(configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline), keyStore: MemoryKeyStore())

            // i. User information verification and OTP number request.
            let localAuthType = try #require(
                try await tessera.requestSendOTPNumberForRegisterDevice(userKey: "rita", name: "User rita", sendType: .email, sendTarget: email)
            )
            #expect(localAuthType == .pin)
            // ii. OTP number validation, with the seed's arguments only: the SDK knows the code is a recovery code.
            let code = try await LiveServer.latestCode(runtime, to: email, count: 2)
            guard case .valid(let disposeToken) = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: email, otpNumber: code) else {
                Issue.record("the recovery code was refused")
                return
            }
            func data(authType: LocalAuthType, name: String = "User rita", appPackage: String = Self.bundleId) -> ExistingUserData {
                ExistingUserData(
                    appPackage: appPackage, clientKey: client.clientKey, appVersion: "2.0", token: "", email: email, phoneNumber: "",
                    userKey: "rita", name: name, authType: authType, os: .iOS, disposeToken: disposeToken, otpType: .email
                )
            }
            // Another local-auth type than the account's is refused, and so is a name that is not the account's.
            for (existing, expected) in [(data(authType: .biometric), ErrorCode.localAuthTypeMismatch), (data(authType: .pin, name: "Rita Other"), .identityNotMatched)] {
                do {
                    let prompt: any LocalAuthenticator = existing.authType == .pin ? LiveServer.pin : AcceptingAuthenticator()
                    _ = try await tessera.requestRegisterDevice(existingUserData: existing, localAuthenticator: prompt, reason: "Move")
                    Issue.record("registered with \(existing.authType) / \(existing.name)")
                } catch let error as TesseraError {
                    #expect(error.code == expected)
                }
            }
            // An appPackage other than the SDK's own is refused before anything is sent.
            await #expect(throws: TesseraError.self) {
                _ = try await tessera.requestRegisterDevice(
                    existingUserData: data(authType: .pin, appPackage: "com.other.app"), localAuthenticator: LiveServer.pin, reason: "Move"
                )
            }
            // iv. Register New Device with the full data: the refusals above consumed nothing.
            let state = try await tessera.requestRegisterDevice(existingUserData: data(authType: localAuthType), localAuthenticator: LiveServer.pin, reason: "Move")
            #expect(state.deviceId != oldDevice)
            #expect(try await tessera.deviceInfo().userKey == "rita")
            #expect(try tessera.loadLocalAuthType() == .pin)
            await #expect(throws: TesseraError.self) { _ = try await old.deviceInfo() }
        }
    }

    @Test("verifyOTPNumber without a purpose still verifies a sign-up code after a sign-up send")
    func signUpDefault() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let tessera = TesseraClient(configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline), keyStore: MemoryKeyStore())
            try await tessera.requestSendOTPNumber(sendType: .email, sendTarget: "New.User@Example.com")
            let code = try await LiveServer.latestCode(runtime, to: "new.user@example.com")
            let answer = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: "new.user@example.com", otpNumber: code)
            guard case .valid = answer else {
                Issue.record("the sign-up code was refused: \(answer)")
                return
            }
        }
    }
}
