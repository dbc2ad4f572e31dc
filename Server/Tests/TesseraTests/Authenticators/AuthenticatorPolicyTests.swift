import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import Testing
@testable import Tessera
import TesseraCore
@testable import TesseraServer

/// The client's policy is enforced by the server: requests made without the SDK's checks (signed
/// by a real enrolled device, straight to the route) are refused when they break it.
@Suite("Server: authenticator policy")
struct AuthenticatorPolicyTests {
    static let bundle = "com.example.policy"

    /// A registration body for `type` with a fresh key and a valid proof of possession.
    static func registration(
        _ type: AuthenticatorType, deviceId: String, username: String = "polly", pin: String? = nil, password: String? = nil, fallback: Bool = false
    ) throws -> AuthenticatorRegistrationRequest {
        let key = P256.Signing.PrivateKey()
        let publicKey = key.publicKey.x963Representation.base64EncodedString()
        let proof = try key.signature(for: AuthenticatorRegistrationRequest.proofBytes(deviceId: deviceId, aaid: type.aaid, publicKey: publicKey))
        return AuthenticatorRegistrationRequest(
            username: username, aaid: type.aaid, publicKey: publicKey, keySignature: proof.derRepresentation.base64EncodedString(), pin: pin, password: password,
            allowDevicePasscodeAsFallback: fallback
        )
    }

    static func expectRefused(_ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code), but it was accepted", sourceLocation: sourceLocation)
        } catch let error as TesseraError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Sets the client's policy through the admin API.
    static func setPolicy(_ policy: ClientPolicy, url: URL, runtime: TesseraRuntime, clientKey: String) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url.appendingPathComponent("v1/admin/clients/\(clientKey)/policy").absoluteString)
        request.method = .PUT
        request.headers.add(name: "Authorization", value: "Bearer \(try #require(runtime.firstStart?.adminToken))")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(policy)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: body))
    }

    @Test("a PIN breaking the rules, a disallowed type, a disallowed fallback and a forged proof are refused by the server")
    func serverEnforces() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "polly", bundleId: Self.bundle)
            let deviceId = try #require(try tessera.loadDeviceID())
            var policy = ClientPolicy(
                allowedAuthenticators: [.pin, .fingerprint], pin: PINRules(minLength: 6, maxLength: 8), allowDevicePasscodeFallback: false
            )
            let set = try await Self.setPolicy(policy, url: url, runtime: runtime, clientKey: client.clientKey)
            #expect(set.status == 200, "\(set.body)")
            let fetched: ClientPolicy = try await tessera.call("GET", "/v1/policy")
            #expect(fetched == policy)

            func register(_ body: AuthenticatorRegistrationRequest) async throws -> AuthenticatorInfo {
                try await tessera.call("POST", "/v1/devices/authenticators", body: body, signedBy: deviceId)
            }
            // PINs that break the rules: too short, too long, one digit repeated, a run, not digits.
            for pin in ["12345", "123456789", "777777", "345678", "98a765"] {
                await Self.expectRefused(.pinPolicyViolation) { _ = try await register(try Self.registration(.pin, deviceId: deviceId, pin: pin)) }
            }
            // A type the policy does not allow, and passcode fallback it does not allow.
            await Self.expectRefused(.authenticatorNotAllowed) {
                _ = try await register(try Self.registration(.password, deviceId: deviceId, password: "longenough1"))
            }
            await Self.expectRefused(.passcodeFallbackNotAllowed) { _ = try await register(try Self.registration(.fingerprint, deviceId: deviceId, fallback: true)) }
            // A proof made by another key, or for another device.
            var forged = try Self.registration(.pin, deviceId: deviceId, pin: "482913")
            forged.publicKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
            await Self.expectRefused(.authenticatorKeyInvalid) { _ = try await register(forged) }
            await Self.expectRefused(.authenticatorKeyInvalid) { _ = try await register(try Self.registration(.pin, deviceId: "dev_other", pin: "482913")) }
            #expect(try await runtime.authenticators.list(deviceId: deviceId).authenticators.isEmpty)

            // What the policy allows is registered, once per type; listed and deleted by the device and the admin.
            let pin = try await register(try Self.registration(.pin, deviceId: deviceId, pin: "482913"))
            #expect(pin.type == .pin && pin.deviceId == deviceId)
            await Self.expectRefused(.authenticatorExists) { _ = try await register(try Self.registration(.pin, deviceId: deviceId, pin: "592041")) }
            let finger = try await register(try Self.registration(.fingerprint, deviceId: deviceId))
            #expect(finger.invalidateOnNewOsBiometrics)
            let listed: AuthenticatorList = try await tessera.call("GET", "/v1/devices/authenticators", signedBy: deviceId)
            #expect(listed.authenticators.map(\.id) == [pin.id, finger.id])
            let _: TesseraClient.NoContent = try await tessera.call("DELETE", "/v1/devices/authenticators/\(pin.id)", signedBy: deviceId)
            await Self.expectRefused(.authenticatorUnknown) {
                let _: TesseraClient.NoContent = try await tessera.call("DELETE", "/v1/devices/authenticators/\(pin.id)", signedBy: deviceId)
            }
            let userId = try await runtime.userAdmin.userId(clientKey: client.clientKey, userKey: "polly")
            #expect(try await runtime.authenticators.list(userId: userId).authenticators.map(\.id) == [finger.id])

            // A looser policy takes effect at once; an unusable one is refused.
            policy.allowedAuthenticators = AuthenticatorType.allCases
            #expect(try await Self.setPolicy(policy, url: url, runtime: runtime, clientKey: client.clientKey).status == 200)
            _ = try await register(try Self.registration(.password, deviceId: deviceId, password: "longenough1"))
            await Self.expectRefused(.passwordPolicyViolation) {
                let other = try await LiveServer.enrol(runtime, client, url, userKey: "polly2", bundleId: Self.bundle)
                let otherId = try #require(try other.loadDeviceID())
                let _: AuthenticatorInfo = try await other.call(
                    "POST", "/v1/devices/authenticators", body: try Self.registration(.password, deviceId: otherId, username: "polly2", password: "short"), signedBy: otherId
                )
            }
            policy.allowedAuthenticators = []
            #expect(try await Self.setPolicy(policy, url: url, runtime: runtime, clientKey: client.clientKey).status == 400)
        }
    }
}
