import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// Enrolments with App Attest over HTTP (issue 41): the enrolment challenge of a bound minted case (its device key is
/// the case's Tessera device key, its 16 random bytes scripted), and sign-ups that carry the attestation.
extension AppAttestHTTPFixture {
    /// `POST /v1/app-attest/challenge` for `devicePublicKey` (with the client's headers, no device); the answer.
    func enrolmentChallengeResponse(devicePublicKey: String) async throws -> TestResponse {
        let body = try JSONEncoder().encode(AppAttestEnrolmentChallengeRequest(devicePublicKey: devicePublicKey))
        var headers = HTTPFixtures.appHeaders(client)
        headers[.contentType] = "application/json"
        return try await http.executeRequest(uri: "/v1/app-attest/challenge", method: .post, headers: headers, body: ByteBuffer(bytes: body))
    }

    /// The enrolment challenge of the bound case `bound` (its random half scripted), checked to be the case's challenge.
    func enrolmentChallenge(for bound: AppAttestFixtures.Case) async throws -> String {
        random.enqueue(Array(AppAttestFixtures.hex(bound.challenge).prefix(16)))
        let response = try await enrolmentChallengeResponse(devicePublicKey: try bound.deviceKey().publicKey.x963Representation.base64EncodedString())
        try #require(response.status == .ok, "\(String(buffer: response.body))")
        #expect(response.headers[.cacheControl] == "no-store")
        let issued = try JSONDecoder().decode(AppAttestChallenge.self, from: Data(buffer: response.body)).challenge
        // The device key bound into it is the case's, so the case's attestation fits the challenge issued.
        #expect(issued == Data(AppAttestFixtures.hex(bound.challenge)).base64URLEncodedString())
        return issued
    }

    /// The `appAttest` member for the attestation of `bound` with `challenge`.
    static func evidence(_ bound: AppAttestFixtures.Case, challenge: String) -> AppAttestAttestationRequest {
        AppAttestAttestationRequest(
            keyId: Data(AppAttestFixtures.hex(bound.keyId)).base64EncodedString(),
            attestationObject: Data(AppAttestFixtures.hex(bound.attestationObject)).base64EncodedString(), challenge: challenge
        )
    }

    /// `POST /v1/signup` of `userKey` with the device key `deviceKey` and `appAttest`; the answer. `disposeToken`: the
    /// token the code's verification makes (`tdt_` and base64url of 32 bytes, scripted); nil: a random one.
    func signUp(
        _ userKey: String, deviceKey: P256.Signing.PrivateKey, appAttest: AppAttestAttestationRequest?, disposeToken: String? = nil
    ) async throws -> TestResponse {
        let email = "\(userKey)@example.com"
        let token = try await self.disposeToken(email: email, scripted: disposeToken)
        return try await signUpWithToken(token, email: email, userKey: userKey, deviceKey: deviceKey, appAttest: appAttest)
    }

    /// `POST /v1/signup` of `userKey` with the dispose token `token` verified for `email`, the device key `deviceKey`
    /// and `appAttest`; the answer.
    func signUpWithToken(
        _ token: String, email: String, userKey: String, deviceKey: P256.Signing.PrivateKey, appAttest: AppAttestAttestationRequest?
    ) async throws -> TestResponse {
        var request = SignUpFixtures.request(
            client, email: email, phone: "+4179\(Int.random(in: 1_000_000...9_999_999))", userKey: userKey, token: token, deviceKey: deviceKey
        )
        request.appAttest = appAttest
        let body = try JSONEncoder().encode(request)
        let headers = try signedHeaders(method: "POST", path: "/v1/signup", body: body, deviceKey: deviceKey)
        return try await http.executeRequest(uri: "/v1/signup", method: .post, headers: headers, body: ByteBuffer(bytes: body))
    }

    /// A dispose token for a sign-up of `email` (an OTP sent, read from the mail and verified); `scripted`: the token
    /// the verification must make (its 32 bytes queued for the draw), checked.
    func disposeToken(email: String, scripted: String?) async throws -> String {
        guard let scripted else { return try await SignUpFixtures.disposeToken(runtime, client, email: email) }
        _ = try await runtime.otp.send(client: client, channel: .email, target: email, purpose: .signup, ip: nil)
        let code = try await runtime.deliverAndReadCode(to: email)
        random.enqueue(Array(try #require(Data(base64URLEncoded: String(scripted.dropFirst(4))))))
        guard case .valid(let token) = try await runtime.otp.verify(client: client, channel: .email, target: email, code: code, purpose: .signup) else {
            throw ConfigurationError("code refused")
        }
        try #require(token == scripted, "the verification drew other bytes than the scripted token's")
        return token
    }

    /// The token of a new session without a device key (a registration flow finished for `phone`); `scripted`: the
    /// token the finish must make (its 32 bytes queued for the draw), checked.
    func pendingSession(phone: String, scripted: String?) async throws -> String {
        let flows = runtime.flows
        let flow = try await flows.create(client: client)
        _ = try await flows.sendPhoneCode(client: client, flowId: flow.id, phoneNumber: phone, ip: nil)
        _ = try await flows.verifyPhone(client: client, flowId: flow.id, code: try await runtime.deliverAndReadCode(to: phone))
        if let scripted { random.enqueue(Array(try #require(Data(base64URLEncoded: String(scripted.dropFirst(4)))))) }
        let grant = try await flows.finish(client: client, flowId: flow.id, request: FlowFinishRequest(
            password: nil, email: "s\(phone.suffix(4))@example.com", firstName: "Sam", lastName: "Session", phoneNumber: phone
        ))
        if let scripted { try #require(grant.sessionToken == scripted, "the finish drew other bytes than the scripted token's") }
        return grant.sessionToken
    }

    /// `PUT /v1/session/device` of the session `sessionToken` with the device key `deviceKey` and `appAttest`; the answer.
    func putSessionDevice(_ sessionToken: String, deviceKey: P256.Signing.PrivateKey, appAttest: AppAttestAttestationRequest?) async throws -> TestResponse {
        let request = SessionDeviceRequest(
            devicePublicKey: deviceKey.publicKey.x963Representation.base64EncodedString(),
            userVerificationPublicKey: P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString(),
            os: "iOS", appVersion: "1.0", pushToken: "", appAttest: appAttest
        )
        let body = try JSONEncoder().encode(request)
        var headers = try signedHeaders(method: "PUT", path: "/v1/session/device", body: body, deviceKey: deviceKey)
        headers[.authorization] = "Bearer \(sessionToken)"
        return try await http.executeRequest(uri: "/v1/session/device", method: .put, headers: headers, body: ByteBuffer(bytes: body))
    }

    /// The client's headers and an RFC 9421 signature of `body` for `method` `path` by `deviceKey`, made at the runtime's
    /// clock (a test moves it), not the machine's.
    func signedHeaders(method: String, path: String, body: Data, deviceKey: P256.Signing.PrivateKey) throws -> HTTPFields {
        let signed = try MessageSignature.sign(
            method: method, path: path, body: body, keyId: MessageSignature.thumbprint(ofX963: deviceKey.publicKey.x963Representation),
            privateKey: deviceKey, nonce: UUID().uuidString, created: clock.clock.now() / 1000
        )
        var headers = HTTPFixtures.appHeaders(client)
        headers[.contentType] = "application/json"
        headers[HTTPField.Name("Content-Digest")!] = signed.contentDigest
        headers[HTTPField.Name("Signature-Input")!] = signed.signatureInput
        headers[HTTPField.Name("Signature")!] = signed.signature
        return headers
    }

    /// The user keys of the client's users, from the admin API.
    func userKeys() async throws -> [String] {
        let response = try await http.executeRequest(uri: "/v1/admin/users?clientKey=\(client.clientKey)", method: .get, headers: Self.admin, body: nil)
        try #require(response.status == .ok)
        return try JSONDecoder().decode(AdminUserPage.self, from: Data(buffer: response.body)).users.map(\.userKey).sorted()
    }

    /// The App Attest state of `userKey`'s device in the admin API.
    func adminState(userKey: String) async throws -> AppAttestDeviceState? {
        let response = try await http.executeRequest(uri: "/v1/admin/users?clientKey=\(client.clientKey)", method: .get, headers: Self.admin, body: nil)
        try #require(response.status == .ok)
        let page = try JSONDecoder().decode(AdminUserPage.self, from: Data(buffer: response.body))
        return page.users.first { $0.userKey == userKey }?.devices.first?.appAttest
    }
}
