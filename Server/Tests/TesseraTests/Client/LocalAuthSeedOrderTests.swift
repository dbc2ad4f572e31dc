import Foundation
import Synchronization
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// "Local Authentication must succeed to invoke requestSignUp" (BSA seed): the app prompts with
/// `startSimpleAuth`, then signs up with no second prompt; the biometric domain state saved at sign-up
/// makes `DOMAIN_STATE_CHANGED` fire once the enrolled biometrics change.
@Suite("Local authentication in the seed's order")
struct LocalAuthSeedOrderTests {
    static let bundleId = "com.example.localauth"

    @Test("startSimpleAuth, then requestSignUp(userData:) without a second prompt; without it 9103; a changed domain state fails with DOMAIN_STATE_CHANGED")
    func seedOrder() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { runtime, client, url in
            let tessera = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()
            )
            let api = TesseraCallbacks(client: tessera)
            let email = "bio@example.com"
            try await tessera.requestSendOTPNumber(sendType: .email, sendTarget: email)
            guard case .valid(let disposeToken) = try await tessera.verifyOTPNumber(
                sendType: .email, sendTarget: email, otpNumber: try await LiveServer.latestCode(runtime, to: email)
            ) else { throw ConfigurationError("code refused") }
            let userData = UserData(
                appVersion: "1.0", token: "", email: email, phoneNumber: "+41795550123", userKey: "bio", name: "Bio User", authType: .biometric,
                os: .iOS, disposeToken: disposeToken, agreeGccs: true, agreePerson: true, agreeDevice: true
            )
            let events = Mutex([String]())
            @Sendable func record(_ event: String) { events.withLock { $0.append(event) } }
            let enrolled = Data("face-set-1".utf8), changed = Data("face-set-2".utf8)
            let prompt = ScriptedLocalAuthenticator([
                .success(LocalAuthResult(domainState: enrolled)), .success(LocalAuthResult(domainState: changed)),
                .success(LocalAuthResult(domainState: enrolled)),
            ])

            // Signing up before any local authentication is refused locally: nothing is sent.
            await api.requestSignUp(
                userData: userData, onSuccess: { record("signed up") }, onFailed: { code, _ in record("failed \(code)") },
                onError: { _ in record("error") }
            ).wait()
            // The seed's order: iii. local authentication, iv. sign-up.
            await api.startSimpleAuth(
                localAuthType: .biometric, reason: "Sign up", checkDomainStateChanged: false, usePasscodeWhenFailed: false,
                localAuthenticator: prompt, onSuccess: { record("local ok") }, onError: { record("local \($0?.rawValue ?? "?")") }
            ).wait()
            await api.requestSignUp(
                userData: userData, onSuccess: { record("signed up") }, onFailed: { code, _ in record("failed \(code)") },
                onError: { _ in record("error") }
            ).wait()
            #expect(events.withLock { $0 } == ["failed \(ErrorCode.localAuthRequired.rawValue)", "local ok", "signed up"])
            #expect(prompt.requests.count == 1)  // one prompt, the app's
            #expect(try tessera.keyStore.loadState()?.domainState == enrolled)
            #expect(try await tessera.deviceInfo().userKey == "bio")

            // Later prompts that check the domain state: changed biometrics fail, the enrolled ones pass.
            events.withLock { $0.removeAll() }
            for _ in 0..<2 {
                await api.startSimpleAuth(
                    localAuthType: .biometric, reason: "Log in", checkDomainStateChanged: true, usePasscodeWhenFailed: true,
                    localAuthenticator: prompt, onSuccess: { record("local ok") }, onError: { record("local \($0?.rawValue ?? "?")") }
                ).wait()
            }
            #expect(events.withLock { $0 } == ["local \(LocalAuthErrorCode.domainStateChanged.rawValue)", "local ok"])
            let last = try #require(prompt.requests.last)
            #expect(last.savedDomainState == enrolled)
            #expect(last.checkDomainStateChanged && last.usePasscodeWhenFailed)
        }
    }
}
