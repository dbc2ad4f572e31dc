import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TesseraTestSupport
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// Sign-up through the SDK against a live server: OTP from the courier, local authentication with a
/// software PIN, keys in a file key store, signed sign-up, stored device state, TOTP like oathtool.
@Suite("SDK: sign-up")
struct TesseraClientSignUpTests {
    func withLiveServer(_ body: @escaping @Sendable (TesseraRuntime, Client, URL) async throws -> Void) async throws {
        try await LiveServer.run(bundleId: "com.example.sdk", body)
    }

    static func oathtool(_ base32: String, at time: Int64) throws -> String {
        let oathtool = try TestRequirements.program("oathtool", for: "the reference TOTP code", debianPackage: "oathtool")
        let (_, output) = try ChildProcess.runBlocking(oathtool, ["--totp", "-b", "-N", "@\(time)", base32])
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("OTP, local PIN, signed sign-up; the device state is stored and its TOTP matches oathtool")
    func signUp() async throws {
        try await withLiveServer { runtime, client, url in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("device-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let tessera = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.sdk", timeout: .sdkTestDeadline),
                keyStore: try FileKeyStore(directory: directory)
            )
            #expect(try await tessera.checkDuplicateUserData(verifyData: "dev@example.com", verifyType: .email) == false)
            #expect(try await tessera.checkUserKeyAvailable(userKey: "devuser") == true)
            try await tessera.requestSendOTPNumber(sendType: .email, sendTarget: "dev@example.com")
            let code = try await LiveServer.latestCode(runtime, to: "dev@example.com")
            guard case .valid(let disposeToken) = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: "dev@example.com", otpNumber: code) else {
                Issue.record("code refused")
                return
            }
            let userData = UserData(
                appVersion: "1.0", token: "push-1", email: "dev@example.com", phoneNumber: "+41790001122", userKey: "devuser",
                name: "Dev User", authType: .pin, os: .linux, disposeToken: disposeToken, agreeGccs: true, agreePerson: true, agreeDevice: true
            )
            // A failed local authentication sends nothing.
            let wrongPIN = SoftwareSecretAuthenticator(type: .pin, store: MemorySecretVerifierStore()) { _ in "000000" }
            try wrongPIN.enroll(secret: "482913")
            await #expect(throws: LocalAuthError(.authFailed, remainingAttempts: 4)) {
                try await tessera.requestSignUp(userData: userData, localAuthenticator: wrongPIN, reason: "Sign up")
            }
            #expect(try await tessera.checkUserKeyAvailable(userKey: "devuser") == true)

            let pin = SoftwareSecretAuthenticator(type: .pin, store: MemorySecretVerifierStore()) { _ in "482913" }
            try pin.enroll(secret: "482913")
            let state = try await tessera.requestSignUp(userData: userData, localAuthenticator: pin, reason: "Sign up")
            #expect(state.deviceId.hasPrefix("dev_"))
            #expect(try tessera.loadDeviceID() == state.deviceId)
            #expect(try tessera.loadUserKey() == "devuser")
            #expect(try tessera.loadFCMToken() == "push-1")
            #expect(try tessera.loadLocalAuthType() == .pin)
            #expect(try await tessera.checkDuplicateUserData(verifyData: "dev@example.com", verifyType: .email) == true)

            // The stored state survives a restart of the app (a new client over the same key store).
            let reopened = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.sdk", timeout: .sdkTestDeadline),
                keyStore: try FileKeyStore(directory: directory)
            )
            let secret = try #require(try reopened.loadTOTPSecretKey())
            let now = Int64(Date().timeIntervalSince1970)
            let sdkCode = try reopened.currentTOTPCode(at: Date(timeIntervalSince1970: TimeInterval(now)))
            #expect(sdkCode == (try Self.oathtool(secret, at: now)))
            // The user-verification key only opens with the PIN.
            let store = try FileKeyStore(directory: directory)
            #expect(throws: KeyStoreError.locked) { try store.signWithUserVerificationKey(Data("x".utf8), unlockSecret: "111111") }
            _ = try store.signWithUserVerificationKey(Data("x".utf8), unlockSecret: "482913")
        }
    }
}
