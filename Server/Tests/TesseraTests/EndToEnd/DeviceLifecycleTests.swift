import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The whole device life through the SDK against a live server, with real mail: sign-up with the
/// OTP read from the message aiosmtpd received, recovery onto a second device, and the first
/// device's next signed request refused.
@Suite("End to end: sign-up and recovery", .serialized)
struct DeviceLifecycleTests {
    typealias MailServer = MailFixtures.SMTPTestServer

    static func latestCode(_ mail: MailServer, count: Int) async throws -> String {
        let received = try await MailFixtures.waitForMail(mail, count: count)
        return try MailFixtures.code(in: received[count - 1])
    }

    @Test("sign up device A, recover onto device B, A is refused", arguments: TestDatabase.kinds)
    func signUpThenRecover(kind: TestDatabase) async throws {
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true) { mail in
            try await withTestRuntime(kind, configure: {
                $0.smtp = MailFixtures.smtpSettings(mail)
                $0.emailDelivery = .smtp
                $0.courierPollInterval = .milliseconds(100)
                $0.otp.resendCooldown = .zero  // sign-up and recovery codes go to the same address seconds apart
            }) { runtime in
                let client = try await runtime.makeTestClient(bundle: "com.example.e2e")
                let app = Application(
                    router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                    services: [runtime.courier], logger: TestDatabase.logger
                )
                nonisolated(unsafe) let mail = mail
                try await app.test(.live) { http in
                    let url = URL(string: "http://127.0.0.1:\(http.port!)")!
                    func device() -> TesseraClient {
                        TesseraClient(configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.e2e", timeout: .sdkTestDeadline), keyStore: MemoryKeyStore())
                    }
                    let pin = SoftwareSecretAuthenticator(type: .pin, store: MemorySecretVerifierStore()) { _ in "271828" }
                    try pin.enroll(secret: "271828")

                    // Device A signs up.
                    let deviceA = device()
                    try await deviceA.requestSendOTPNumber(sendType: .email, sendTarget: "erin@example.com")
                    let signupCode = try await Self.latestCode(mail, count: 1)
                    guard case .valid(let signupToken) = try await deviceA.verifyOTPNumber(sendType: .email, sendTarget: "erin@example.com", otpNumber: signupCode) else {
                        Issue.record("sign-up code refused"); return
                    }
                    let stateA = try await deviceA.requestSignUp(userData: UserData(
                        appVersion: "1.0", token: "push-a", email: "erin@example.com", phoneNumber: "+41795550101", userKey: "erin",
                        name: "Erin Example", authType: .pin, os: .linux, disposeToken: signupToken, agreeGccs: true, agreePerson: true, agreeDevice: true
                    ), localAuthenticator: pin, reason: "Sign up")
                    #expect(try await deviceA.deviceInfo().deviceId == stateA.deviceId)
                    // Device A logs in through the embedded nodes; its result token introspects as active.
                    let tokenA = try await deviceA.authenticate(localAuthenticator: pin, reason: "Log in")
                    let introspection = Introspection(
                        database: runtime.database, devices: runtime.repositories.devices, sessions: runtime.repositories.sessions,
                        tokens: runtime.tokens, hasher: runtime.keys.hasher, clock: .system
                    )
                    #expect(try await introspection.introspect(token: tokenA, client: client).active)

                    // Device B proves the identity; a wrong name or address answers the same way.
                    let deviceB = device()
                    for (name, target) in [("Erin Wrong", "erin@example.com"), ("Erin Example", "other@example.com")] {
                        do {
                            _ = try await deviceB.requestSendOTPNumberForRegisterDevice(userKey: "erin", name: name, sendType: .email, sendTarget: target)
                            Issue.record("identity check passed with \(name) / \(target)")
                        } catch let error as TesseraError {
                            #expect(error.code == .identityNotMatched)
                        }
                    }
                    let lastType = try await deviceB.requestSendOTPNumberForRegisterDevice(
                        userKey: "erin", name: "Erin Example", sendType: .email, sendTarget: "Erin@Example.com"
                    )
                    #expect(lastType == .pin)
                    let recoveryCode = try await Self.latestCode(mail, count: 2)
                    guard case .valid(let recoveryToken) = try await deviceB.verifyOTPNumber(
                        sendType: .email, sendTarget: "erin@example.com", otpNumber: recoveryCode, purpose: .recovery
                    ) else { Issue.record("recovery code refused"); return }
                    let stateB = try await deviceB.requestRegisterDevice(existingUserData: ExistingUserData(
                        userKey: "erin", disposeToken: recoveryToken, appVersion: "1.0", token: "push-b", authType: .pin, os: .linux
                    ), localAuthenticator: pin, reason: "Move account")
                    #expect(stateB.deviceId != stateA.deviceId)
                    #expect(try await deviceB.deviceInfo().userKey == "erin")
                    print("[\(kind)] device \(stateA.deviceId) recovered onto \(stateB.deviceId)")

                    // Device A's next signed request is refused with its code.
                    do {
                        _ = try await deviceA.deviceInfo()
                        Issue.record("the revoked device was still accepted")
                    } catch let error as TesseraError {
                        #expect(error.code == .deviceRevoked)
                    }
                    // Its result token is now inactive, and every node holds the revocation (signed receipts).
                    #expect(try await introspection.introspect(token: tokenA, client: client).active == false)
                    let revokedAt = try await runtime.database.withSQL { sql in
                        try await sql.raw("SELECT node_id FROM node_receipts WHERE device_id = \(bind: stateA.deviceId) AND status = 'revoked'").all()
                    }
                    #expect(revokedAt.count == runtime.embeddedNodes.count)
                    // Device B logs in.
                    let tokenB = try await deviceB.authenticate(localAuthenticator: pin, reason: "Log in")
                    #expect(try await introspection.introspect(token: tokenB, client: client).active)
                }
            }
        }
    }
}
