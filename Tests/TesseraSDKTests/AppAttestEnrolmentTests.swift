import Crypto
import Foundation
import Synchronization
import Testing
@testable import Tessera
import TesseraCore

/// App Attest at enrolment in the SDK (issue 41): with ``TesseraClient/useAppAttest(_:)`` set, a sign-up derives
/// the challenge from its dispose token and the new device key (no challenge call), has the (fake) App Attest service
/// attest a new key over SHA-256 of the challenge's bytes and sends it as `appAttest`; the key ID is stored with the
/// device. A device without App Attest enrols without one; a client whose policy is off refuses the attestation (7406)
/// and the SDK enrols again without it. The server's verification runs in Server/Tests.
@Suite("App Attest at enrolment in the SDK")
struct AppAttestEnrolmentSDKTests {
    /// Plays the server: answers `POST /v1/app-attest/challenge` and the sign-up; a sign-up that carries `appAttest`
    /// is answered with the problem `attestationRefusal` when one is set.
    final class Server: HTTPTransport {
        let requests = Mutex<[(path: String, body: Data)]>([])
        let attestationRefusal: ErrorCode?
        static let challengeBytes = Data(SHA256.hash(data: Data("enrolment challenge".utf8)))

        init(attestationRefusal: ErrorCode? = nil) { self.attestationRefusal = attestationRefusal }

        func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
            requests.withLock { $0.append((url.path, body ?? Data())) }
            if url.path == "/v1/app-attest/challenge" {
                return HTTPAnswer(status: 200, body: Data(#"{"challenge":"\#(MessageSignature.base64URL(Self.challengeBytes))","expiresIn":300}"#.utf8))
            }
            if url.path == "/v1/login/password" {
                let identity = IdentityInfo(id: "idn_1", email: "alice@example.com", phoneNumber: "+41790000001", name: "Alice", hasPassword: true)
                return HTTPAnswer(status: 200, body: try JSONEncoder().encode(SessionGrant(sessionToken: "tss_1", sessionExpiresIn: 60, identity: identity)))
            }
            if url.path == "/v1/session/device" {
                let sent = try JSONDecoder().decode(SessionDeviceRequest.self, from: body ?? Data())
                if let code = attestationRefusal, sent.appAttest != nil {
                    let problem = Problem(code: code, status: 403, title: code.name, detail: "scripted")
                    return HTTPAnswer(status: 403, body: try JSONEncoder().encode(problem))
                }
                return HTTPAnswer(status: 201, body: try JSONEncoder().encode(SessionDeviceResponse(deviceId: "dev_2", totpSecret: "JBSWY3DPEHPK3PXP", revokedDeviceIds: [])))
            }
            if let code = attestationRefusal, let body, try JSONDecoder().decode(SignUpRequest.self, from: body).appAttest != nil {
                let problem = Problem(code: code, status: 403, title: code.name, detail: "scripted")
                return HTTPAnswer(status: 403, body: try JSONEncoder().encode(problem))
            }
            let answer = SignUpResponse(userKey: "alice", deviceId: "dev_1", totpSecret: "JBSWY3DPEHPK3PXP", sessionToken: "tst_1", sessionExpiresIn: 60)
            return HTTPAnswer(status: 200, body: try JSONEncoder().encode(answer))
        }

        func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
            throw OfflineTransport.Offline()
        }

        var paths: [String] { requests.withLock { $0.map(\.path) } }
        func body(of path: String) -> Data? { requests.withLock { $0.last { $0.path == path }?.body } }
    }

    static func signUp(_ client: TesseraClient) async throws {
        let userData = UserData(
            appVersion: "1.1.1", token: "push-1", email: "alice@example.com", phoneNumber: "+41790000001", userKey: "alice",
            name: "Alice", authType: .pin, os: .iOS, disposeToken: "tdt_1", agreeGccs: true, agreePerson: true, agreeDevice: true
        )
        try await client.requestSignUp(userData: userData, localAuthenticator: EnrolmentWireTests.pin, reason: "Sign up")
    }

    @Test("sign-up: the challenge derived from the dispose token and the new device key, no challenge call, attestKey over SHA-256 of its bytes, appAttest sent, key ID stored")
    func attested() async throws {
        let server = Server(), keyStore = MemoryKeyStore(), apple = FakeAppAttestService()
        let client = TesseraClient(configuration: EnrolmentWireTests.configuration, keyStore: keyStore, transport: server)
        client.useAppAttest(apple)
        try await Self.signUp(client)
        #expect(server.paths == ["/v1/signup"])
        let signUp = try JSONDecoder().decode(SignUpRequest.self, from: try #require(server.body(of: "/v1/signup")))
        let challenge = AppAttestDeviceBinding.enrolmentChallenge(
            secret: "tdt_1", deviceKey: Array(try #require(Data(base64Encoded: signUp.devicePublicKey)))
        )
        let keyId = try #require(apple.calls.withLock { $0.generatedKeys.first })
        let attested = try #require(apple.calls.withLock { $0.attested.first })
        #expect(attested.keyId == keyId && attested.clientDataHash == Data(SHA256.hash(data: challenge)))
        let sent = try #require(signUp.appAttest)
        #expect(sent.keyId == keyId && sent.challenge == MessageSignature.base64URL(Data(challenge)))
        #expect(Data(base64Encoded: sent.attestationObject) == FakeAppAttestService.object("attestation", keyId, attested.clientDataHash))
        #expect(try client.appAttestKeyId() == keyId)
    }

    @Test("a device without App Attest signs up without appAttest, attesting nothing; a client whose policy is off refuses it (7406) and the SDK signs up again without")
    func withoutAttestation() async throws {
        for (server, apple, paths) in [
            (Server(), FakeAppAttestService(isSupported: false), ["/v1/signup"]),
            (Server(attestationRefusal: .appAttestOff), FakeAppAttestService(), ["/v1/signup", "/v1/signup"]),
        ] {
            let client = TesseraClient(configuration: EnrolmentWireTests.configuration, keyStore: MemoryKeyStore(), transport: server)
            client.useAppAttest(apple)
            try await Self.signUp(client)
            #expect(server.paths == paths)
            #expect(try JSONDecoder().decode(SignUpRequest.self, from: try #require(server.body(of: "/v1/signup"))).appAttest == nil)
            #expect(apple.calls.withLock { $0.attested.count } == paths.count - 1)
            #expect(try client.appAttestKeyId() == nil)
        }
    }

    @Test("another refusal of the attestation (here 7412, a wrong chain) stops the sign-up, no second try, nothing stored")
    func refused() async throws {
        let server = Server(attestationRefusal: .appAttestWrongChain), apple = FakeAppAttestService()
        let client = TesseraClient(configuration: EnrolmentWireTests.configuration, keyStore: MemoryKeyStore(), transport: server)
        client.useAppAttest(apple)
        await #expect(throws: TesseraError.self) { try await Self.signUp(client) }
        #expect(server.paths == ["/v1/signup"])
        #expect(try client.appAttestKeyId() == nil)
    }

    @Test("a session's device key: the challenge derived from the session token, no challenge call; a client whose policy is off refuses it (7406) and the SDK registers again without")
    func sessionDeviceKey() async throws {
        for (server, calls) in [(Server(), ["/v1/login/password", "/v1/session/device"]), (Server(attestationRefusal: .appAttestOff), ["/v1/login/password", "/v1/session/device", "/v1/session/device"])] {
            let apple = FakeAppAttestService()
            let client = TesseraClient(configuration: EnrolmentWireTests.configuration, keyStore: MemoryKeyStore(), transport: server)
            client.useAppAttest(apple)
            try await client.login(identifier: "alice@example.com", password: "correct horse")
            #expect(server.paths == calls)
            let sent = try JSONDecoder().decode(SessionDeviceRequest.self, from: try #require(server.body(of: "/v1/session/device")))
            let attested = try #require(apple.calls.withLock { $0.attested.first })
            let challenge = AppAttestDeviceBinding.enrolmentChallenge(secret: "tss_1", deviceKey: Array(try #require(Data(base64Encoded: sent.devicePublicKey))))
            #expect(attested.clientDataHash == Data(SHA256.hash(data: challenge)))
            if calls.count == 2 {
                #expect(sent.appAttest?.challenge == MessageSignature.base64URL(Data(challenge)))
                #expect(try client.appAttestKeyId() == attested.keyId)
            } else {
                #expect(sent.appAttest == nil)
                #expect(try client.appAttestKeyId() == nil)
            }
        }
    }

    /// A channel answer that says `assertion` of App Attest.
    static func channel(_ assertion: String?) -> AuthChannelResponse {
        AuthChannelResponse(
            channelId: "ch_1", challenge: "Y2hhbGxlbmdl", authType: "PIN", connectIp: "", message: "", userKey: "alice", clientKey: "tck_wire",
            expiresIn: 60, appAttestAssertion: assertion
        )
    }

    @Test("an approval whose channel asks for an assertion (or accepts one) carries one over the channel's challenge; none otherwise")
    func approvalAssertion() async throws {
        let server = Server(), keyStore = MemoryKeyStore(), apple = FakeAppAttestService()
        let client = TesseraClient(configuration: EnrolmentWireTests.configuration, keyStore: keyStore, transport: server)
        client.useAppAttest(apple)
        #expect(try await client.signInAssertion(for: Self.channel("required")) == nil, "not enrolled: no attested key")
        try await Self.signUp(client)
        let keyId = try #require(try client.appAttestKeyId())
        #expect(try await client.signInAssertion(for: Self.channel(nil)) == nil)
        for mode in ["required", "accepted"] {
            let sent = try #require(try await client.signInAssertion(for: Self.channel(mode)))
            let clientData = try #require(Data(base64Encoded: sent.clientData))
            #expect(String(decoding: clientData, as: UTF8.self) == #"{"action":"sign-in","challenge":"Y2hhbGxlbmdl","channelId":"ch_1"}"#)
            let asserted = try #require(apple.calls.withLock { $0.asserted.last })
            #expect(asserted.keyId == keyId && asserted.clientDataHash == Data(SHA256.hash(data: clientData)))
            #expect(Data(base64Encoded: sent.assertion) == FakeAppAttestService.object("assertion", keyId, asserted.clientDataHash))
        }
        client.useAppAttest(nil)
        #expect(try await client.signInAssertion(for: Self.channel("required")) == nil, "no provider: the server answers 7422")
    }
}
