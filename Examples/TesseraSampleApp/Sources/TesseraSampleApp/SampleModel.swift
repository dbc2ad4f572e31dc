#if canImport(LocalAuthentication)  // no SwiftUI here: scripts/check-apple-adapters.sh type-checks this file against the shims
import Foundation
import Observation
import Tessera

/// The sample's state and the SDK calls behind its buttons.
@MainActor @Observable
public final class SampleModel {
    /// What the screen shows.
    public var status = "Not signed up"
    /// The progress of the login in progress, one line per server-sent status.
    public var progress: [String] = []

    let tessera: TesseraClient
    let localAuth = AppleLocalAuthentication()

    /// Creates the model for a server; the SDK picks the Secure Enclave where there is one.
    public init(serverURL: URL, clientKey: String) {
        let configuration = TesseraClient.Configuration(
            serverURL: serverURL, clientKey: clientKey, bundleIdentifier: Bundle.main.bundleIdentifier ?? "com.example.tessera-sample"
        )
        tessera = TesseraClient(configuration: configuration, keyStore: AppleKeyStore.automatic(for: configuration))
        status = "Key store: \(tessera.keyStoreKind.rawValue), biometry: \(localAuth.biometryKind())"
    }

    /// Sends the sign-up code to `email`.
    public func sendCode(to email: String) async {
        await run { try await self.tessera.requestSendOTPNumber(sendType: .email, sendTarget: email); return "Code sent to \(email)" }
    }

    /// Verifies the code, asks for Face ID, then signs up with keys the Face ID enrolled now protects.
    public func signUp(email: String, code: String, name: String, pushToken: String) async {
        await run {
            guard case .valid(let disposeToken) = try await self.tessera.verifyOTPNumber(sendType: .email, sendTarget: email, otpNumber: code) else {
                return "Wrong code"
            }
            try await self.tessera.startSimpleAuth(
                localAuthType: .biometric, reason: "Sign up with Face ID", checkDomainStateChanged: false, usePasscodeWhenFailed: false,
                localAuthenticator: self.localAuth
            )
            let state = try await self.tessera.requestSignUp(userData: UserData(
                appVersion: "1.0", token: pushToken, email: email, phoneNumber: "", userKey: email, name: name, authType: .biometric,
                os: .iOS, disposeToken: disposeToken, agreeGccs: true, agreePerson: true, agreeDevice: true
            ))
            return "Signed up as device \(state.deviceId)"
        }
    }

    /// Logs in: the device key proves possession while the progress stream reports each step, then
    /// Face ID (failing with DOMAIN_STATE_CHANGED if faces were added since sign-up) unlocks the
    /// user-verification key.
    public func logIn() async {
        progress = []
        await run {
            let session = try await self.tessera.requestAuthRequest { status in
                Task { @MainActor in self.progress.append(status.rawValue) }
            }
            try await self.tessera.startSimpleAuth(
                localAuthType: session.authType, reason: "Log in", checkDomainStateChanged: session.authType == .biometric,
                usePasscodeWhenFailed: true, localAuthenticator: self.localAuth
            )
            try await self.tessera.requestAuthResult(isSecondaryCertification: true)
            return "Logged in"
        }
    }

    /// Hands the APNs device token to the server, so that relying-party requests wake this device.
    public func registerPushToken(_ deviceToken: Data) async {
        let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
        await run { try await self.tessera.updatePushToken(hex, platform: .apns); return "Push token registered" }
    }

    /// Handles a received push: approves the pending request it names with a login.
    public func handlePush(_ userInfo: sending [AnyHashable: Any]) async {
        do {
            guard let request = try await tessera.handlePush(userInfo: userInfo) else { return }
            status = "Request \(request.channelId) waiting"
            _ = try await tessera.requestAuthRequest(channel: request)
            try await tessera.startSimpleAuth(
                localAuthType: .biometric, reason: "Approve the sign-in", checkDomainStateChanged: true, usePasscodeWhenFailed: true,
                localAuthenticator: localAuth
            )
            try await tessera.requestAuthResult(isSecondaryCertification: true)
            status = "Approved"
        } catch {
            status = "Failed: \(error)"
        }
    }

    private func run(_ step: @escaping @MainActor () async throws -> String) async {
        do { status = try await step() } catch { status = "Failed: \(error)" }
    }
}
#endif
