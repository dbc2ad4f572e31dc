import Crypto
import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The client's PIN and password rules hold wherever a device's local secret is set: at sign-up and
/// at re-registration, as for authenticators and registration flows.
@Suite("Local secret policy")
struct LocalSecretPolicyTests {
    static func expectCode(_ code: ErrorCode, field: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("accepted; expected \(code.rawValue)")
        } catch let error as AppError {
            #expect(error.code == code, "\(error)")
            #expect(error.field == field, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("sign-up: a PIN or password breaking the policy, or missing, is refused; a policy change applies at once", arguments: TestDatabase.kinds)
    func signUp(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            func attempt(_ userKey: String, authType: String, pin: String?, password: String?) async throws {
                let email = "\(userKey)@example.com"
                var request = SignUpFixtures.request(
                    client, email: email, phone: "+4179\(Int.random(in: 1_000_000...9_999_999))", userKey: userKey,
                    token: try await SignUpFixtures.disposeToken(runtime, client, email: email), deviceKey: P256.Signing.PrivateKey()
                )
                request.authType = authType
                request.pin = pin
                request.password = password
                let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
                _ = try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone)
            }
            for (index, weak) in ["1234", "123456", "111111", "12a456", "9876543210"].enumerated() {
                await Self.expectCode(.pinPolicyViolation, field: "pin") { try await attempt("weak\(index)", authType: "PIN", pin: weak, password: nil) }
            }
            await Self.expectCode(.fieldMissing, field: "pin") { try await attempt("nopin", authType: "PIN", pin: nil, password: nil) }
            await Self.expectCode(.passwordPolicyViolation, field: "password") {
                try await attempt("weakpw", authType: "PASSWORD", pin: nil, password: "short1")
            }
            await Self.expectCode(.fieldInvalid, field: "pin") { try await attempt("bio", authType: "BIOMETRIC", pin: "482913", password: nil) }
            // Nothing was created by the refusals.
            #expect(try await runtime.userAdmin.list(clientKey: client.clientKey).users.isEmpty)
            try await attempt("good", authType: "PIN", pin: "482913", password: nil)
            // The policy now asks for 8 digits: the same PIN is refused.
            var policy = try await runtime.policies.policy(clientId: client.id)
            policy.pin.minLength = 8
            try await runtime.policies.set(policy, clientId: client.id)
            await Self.expectCode(.pinPolicyViolation, field: "pin") { try await attempt("short", authType: "PIN", pin: "482913", password: nil) }
        }
    }

    @Test("re-registration: a PIN breaking the policy is refused and the old device stays active", arguments: TestDatabase.kinds)
    func reRegistration(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let client = try await runtime.makeTestClient()
            let deviceId = try await SignUpFixtures.signUp(runtime, client, "erin")
            manual.advance(by: .seconds(3600))  // past the resend cooldown for the address
            _ = try await runtime.otp.send(client: client, channel: .email, target: "erin@example.com", purpose: .recovery, ip: nil)
            let code = try await runtime.deliverAndReadCode(to: "erin@example.com")
            guard case .valid(let token) = try await runtime.otp.verify(
                client: client, channel: .email, target: "erin@example.com", code: code, purpose: .recovery
            ) else { throw ConfigurationError("code refused") }
            let request = RegisterDeviceRequest(
                userKey: "erin", disposeToken: token, appVersion: "1.0", token: "", authType: "PIN", os: "Linux",
                devicePublicKey: P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString(),
                userVerificationPublicKey: P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString(), pin: "000000"
            )
            await Self.expectCode(.pinPolicyViolation, field: "pin") { _ = try await runtime.registration.register(request, client: client) }
            #expect(try await SQLDeviceRepository(database: runtime.database).signingKey(for: deviceId)?.revoked == false)
        }
    }
}
