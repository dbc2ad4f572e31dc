import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TesseraCore
@testable import TesseraServer

/// Sign-ups for the server tests: a dispose token read from the delivered mail, a sign-up request, its signed
/// headers, and a whole sign-up through the service.
package enum SignUpFixtures {
    package static func disposeToken(_ runtime: TesseraRuntime, _ client: Client, email: String) async throws -> String {
        _ = try await runtime.otp.send(client: client, channel: .email, target: email, purpose: .signup, ip: nil)
        let code = try await runtime.deliverAndReadCode(to: email)
        guard case .valid(let token) = try await runtime.otp.verify(client: client, channel: .email, target: email, code: code, purpose: .signup) else {
            throw ConfigurationError("code refused")
        }
        return token
    }

    package static func request(
        _ client: Client, email: String, phone: String, userKey: String, token: String, deviceKey: P256.Signing.PrivateKey,
        agree: Bool = true, userVerificationKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey()
    ) -> SignUpRequest {
        SignUpRequest(
            appPackage: client.bundleIds[0], clientKey: client.clientKey, appVersion: "1.0.0", token: "push-token", email: email,
            phoneNumber: phone, userKey: userKey, name: "Test User", authType: "PIN", os: "Linux", disposeToken: token,
            agreeGccs: agree, agreePerson: agree, agreeDevice: true, devicePublicKey: deviceKey.publicKey.x963Representation.base64EncodedString(),
            userVerificationPublicKey: userVerificationKey.publicKey.x963Representation.base64EncodedString(), pin: "482913"
        )
    }

    package static func headers(_ client: Client, body: Data, signer: P256.Signing.PrivateKey, keyOwner: P256.Signing.PrivateKey) throws -> HTTPFields {
        let signed = try MessageSignature.sign(
            method: "POST", path: "/v1/signup", body: body, keyId: MessageSignature.thumbprint(ofX963: keyOwner.publicKey.x963Representation),
            privateKey: signer, nonce: UUID().uuidString, created: Int64(Date().timeIntervalSince1970)
        )
        var fields: HTTPFields = [.contentType: "application/json"]
        fields[HTTPField.Name(TesseraHeader.clientKey)!] = client.clientKey
        fields[HTTPField.Name(TesseraHeader.bundleId)!] = client.bundleIds[0]
        fields[HTTPField.Name("Content-Digest")!] = signed.contentDigest
        fields[HTTPField.Name("Signature-Input")!] = signed.signatureInput
        fields[HTTPField.Name("Signature")!] = signed.signature
        return fields
    }

    package static func code(_ response: TestResponse) -> Int? {
        (try? JSONDecoder().decode(Problem.self, from: Data(buffer: response.body)))?.code
    }

    /// Signs up a device through the service (as `POST /v1/signup` does) and returns its ID.
    package static func signUp(_ runtime: TesseraRuntime, _ client: Client, _ userKey: String) async throws -> String {
        let email = "\(userKey)@example.com"
        let token = try await SignUpFixtures.disposeToken(runtime, client, email: email)
        let request = SignUpFixtures.request(
            client, email: email, phone: "+4179\(Int.random(in: 1_000_000...9_999_999))", userKey: userKey, token: token,
            deviceKey: P256.Signing.PrivateKey()
        )
        let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
        return try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone).deviceId
    }
}
