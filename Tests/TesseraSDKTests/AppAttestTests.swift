import Crypto
import Foundation
import Testing
@testable import Tessera
import TesseraCore

/// The SDK's half of App Attest (issue 41) on Linux: ``TesseraClient/requestAppAttestation(using:)`` and
/// ``TesseraClient/requestAppAttestAssertion(clientData:using:)`` over a fake `DCAppAttestService`
/// (``FakeAppAttestService``: Apple's service cannot run here) and a stub of the server's routes
/// (``StubAppAttestServer``, which checks the device signature and the hashes). The server's own verification of
/// Apple's objects is tested in Server/Tests with attestations minted at test time.
@Suite("App Attest in the SDK")
struct AppAttestTests {
    static let challengePath = "/v1/devices/app-attest/challenge"
    static let attestationPath = "/v1/devices/app-attest/attestation"
    static let assertionPath = "/v1/devices/app-attest/assertion"

    /// An enrolled device (keys and state in memory), its client and the stub server.
    struct Device {
        let client: TesseraClient
        let server: StubAppAttestServer
        let keyStore: MemoryKeyStore

        init(enrolled: Bool = true) throws {
            keyStore = MemoryKeyStore()
            if enrolled {
                _ = try keyStore.generateKeys(unlockSecret: nil)
                try keyStore.saveState(DeviceState(deviceId: "dev_1", userKey: "alice", totpSecret: "JBSWY3DPEHPK3PXP", pushToken: "", localAuthType: .none))
            }
            server = StubAppAttestServer(keyStore: keyStore, deviceId: "dev_1")
            client = TesseraClient(configuration: EnrolmentWireTests.configuration, keyStore: keyStore, transport: server)
        }
    }

    @Test("attestation: challenge, a new key, attestKey over SHA-256 of the challenge's 32 bytes, the attestation sent signed; the key ID stored")
    func attestation() async throws {
        let device = try Device(), apple = FakeAppAttestService()
        let outcome = try await device.client.requestAppAttestation(using: apple)
        let keyId = try #require(apple.calls.withLock { $0.generatedKeys.first })
        #expect(outcome == .attested(AppAttestDeviceState(attested: true, keyId: keyId, environment: "development", attestedAt: 1_700_000_000_000, counter: 0)))
        #expect(device.server.paths == [Self.challengePath, Self.attestationPath])
        #expect(try device.client.appAttestKeyId() == keyId)
        #expect(try device.keyStore.loadState()?.deviceId == "dev_1", "the rest of the device state is kept")

        // The hash, recomputed here from the challenge the server issued: SHA-256 of its raw bytes, not of its text.
        let challenge = try #require(device.server.state.withLock { $0.issued.first })
        let raw = Data(SHA256.hash(data: Data("challenge 0".utf8)))
        #expect(MessageSignature.base64URL(raw) == challenge && raw.count == 32)
        let attested = try #require(apple.calls.withLock { $0.attested.first })
        #expect(attested.keyId == keyId && attested.clientDataHash == Data(SHA256.hash(data: raw)))
        #expect(attested.clientDataHash != Data(SHA256.hash(data: Data(challenge.utf8))))

        let sent = try JSONDecoder().decode(AppAttestAttestationRequest.self, from: try #require(device.server.state.withLock { $0.requests.last?.body }))
        #expect(sent.keyId == keyId && sent.challenge == challenge)
        #expect(Data(base64Encoded: sent.attestationObject) == FakeAppAttestService.object("attestation", keyId, attested.clientDataHash))
    }

    @Test("assertion: client data is the app's members and the challenge as JSON; generateAssertion signs its SHA-256; the counter comes back")
    func assertion() async throws {
        let device = try Device(), apple = FakeAppAttestService()
        try await device.client.requestAppAttestation(using: apple)
        let first = try await device.client.requestAppAttestAssertion(clientData: ["action": "approve", "channelId": "ch_1/2"], using: apple)
        #expect(first == .asserted(AppAttestAssertionResult(counter: 1)))
        let second = try await device.client.requestAppAttestAssertion(using: apple)
        #expect(second == .asserted(AppAttestAssertionResult(counter: 2)))
        #expect(device.server.paths == [Self.challengePath, Self.attestationPath, Self.challengePath, Self.assertionPath, Self.challengePath, Self.assertionPath])

        let request = try JSONDecoder().decode(AppAttestAssertionRequest.self, from: try #require(device.server.state.withLock { $0.requests.dropFirst(3).first?.body }))
        let clientData = try #require(Data(base64Encoded: request.clientData))
        #expect(String(decoding: clientData, as: UTF8.self) == #"{"action":"approve","challenge":"\#(request.challenge)","channelId":"ch_1/2"}"#)
        let asserted = apple.calls.withLock { $0.asserted }, keyId = try device.client.appAttestKeyId()
        #expect(asserted.count == 2 && asserted[0].keyId == keyId && keyId != nil)
        #expect(asserted[0].clientDataHash == Data(SHA256.hash(data: clientData)))
    }

    @Test("a device without App Attest (Simulator, older device): .unsupported for both calls, nothing sent, nothing stored")
    func unsupported() async throws {
        let device = try Device(), apple = FakeAppAttestService(isSupported: false)
        #expect(try await device.client.requestAppAttestation(using: apple) == .unsupported)
        #expect(try await device.client.requestAppAttestAssertion(using: apple) == .unsupported)
        #expect(device.server.paths.isEmpty && apple.calls.withLock { $0.generatedKeys.isEmpty })
        #expect(try device.client.appAttestKeyId() == nil)
    }

    @Test("not enrolled: deviceUnknown (3007); an assertion before an attestation: appAttestDeviceNotAttested (7404); a challenge member: fieldInvalid; nothing sent")
    func refusedOnTheDevice() async throws {
        let stranger = try Device(enrolled: false), apple = FakeAppAttestService()
        await #expect { try await stranger.client.requestAppAttestation(using: apple) } throws: { ($0 as? TesseraError)?.code == .deviceUnknown }
        let device = try Device()
        await #expect { try await device.client.requestAppAttestAssertion(using: apple) } throws: {
            ($0 as? TesseraError)?.code == .appAttestDeviceNotAttested
        }
        try device.client.storeAppAttestKeyId("a2V5")
        await #expect { try await device.client.requestAppAttestAssertion(clientData: ["challenge": "mine"], using: apple) } throws: {
            ($0 as? TesseraError)?.code == .fieldInvalid
        }
        #expect(stranger.server.paths.isEmpty && device.server.paths.isEmpty)
    }

    @Test("the server's refusals arrive as TesseraError with its code", arguments: [
        (AppAttestTests.challengePath, ErrorCode.appAttestOff, 403),
        (AppAttestTests.attestationPath, ErrorCode.appAttestChallengeExpired, 401),
        (AppAttestTests.attestationPath, ErrorCode.appAttestRpIdMismatch, 401),
        (AppAttestTests.attestationPath, ErrorCode.appAttestAaguidMismatch, 401),
        (AppAttestTests.attestationPath, ErrorCode.conflict, 409),
    ])
    func attestationRefused(path: String, code: ErrorCode, status: Int) async throws {
        let device = try Device(), apple = FakeAppAttestService()
        device.server.refuse(path, code: code, status: status)
        await #expect { try await device.client.requestAppAttestation(using: apple) } throws: {
            let error = $0 as? TesseraError
            return error?.code == code && error?.problem?.status == status && error?.message == "scripted \(code.rawValue)"
        }
        #expect(try device.client.appAttestKeyId() == nil, "no key ID is stored for an attestation the server refused")
        #expect(apple.calls.withLock { $0.generatedKeys.isEmpty } == (path == Self.challengePath), "no key is made when App Attest is off")
    }

    @Test("assertion refusals: the server's codes as they are; 7404 from the server forgets the stored key ID", arguments: [
        (ErrorCode.appAttestCounterNotGrown, 401, true),
        (ErrorCode.appAttestBadSignature, 401, true),
        (ErrorCode.appAttestClientDataMismatch, 401, true),
        (ErrorCode.appAttestDeviceNotAttested, 404, false),
    ])
    func assertionRefused(code: ErrorCode, status: Int, keepsKey: Bool) async throws {
        let device = try Device(), apple = FakeAppAttestService()
        try await device.client.requestAppAttestation(using: apple)
        device.server.refuse(Self.assertionPath, code: code, status: status)
        await #expect { try await device.client.requestAppAttestAssertion(using: apple) } throws: { ($0 as? TesseraError)?.code == code }
        #expect((try device.client.appAttestKeyId() != nil) == keepsKey)
    }

    @Test("Apple's failures: invalidKey is 7404 and forgets the key, serverUnavailable networkError, others localFailure naming the DCError")
    func platformFailures() async throws {
        #expect(AppAttestErrorCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        let device = try Device(), apple = FakeAppAttestService()
        try await device.client.requestAppAttestation(using: apple)
        apple.failure.withLock { $0 = AppAttestErrorCode.failure(code: 3, step: "generateAssertion", description: "") }
        await #expect { try await device.client.requestAppAttestAssertion(using: apple) } throws: { ($0 as? TesseraError)?.code == .appAttestDeviceNotAttested }
        #expect(try device.client.appAttestKeyId() == nil)

        apple.failure.withLock { $0 = AppAttestErrorCode.failure(code: 4, step: "attestKey", description: "") }
        await #expect { try await device.client.requestAppAttestation(using: apple) } throws: { ($0 as? TesseraError)?.code == .networkError }
        struct Odd: Error {}
        apple.failure.withLock { $0 = Odd() }
        await #expect { try await device.client.requestAppAttestation(using: apple) } throws: {
            ($0 as? TesseraError)?.code == .localFailure && ($0 as? TesseraError)?.message.contains("attestKey") == true
        }
        let other = AppAttestErrorCode.failure(code: 1, step: "generateKey", description: "no")
        #expect(other.code == .localFailure && other.message.contains("DCError.featureUnsupported"))
        #expect(AppAttestErrorCode.failure(code: 42, step: "attestKey", description: "").message.contains("DCError 42"))
    }

    @Test("a challenge that is not base64url is invalidResponse; the device state decodes without appAttestKeyId (older versions)")
    func shapes() throws {
        for bad in ["", "AAE=", "AA+B", "AA/B"] {
            #expect { _ = try AppAttestClientData.attestationHash(challenge: bad) } throws: { ($0 as? TesseraError)?.code == .invalidResponse }
        }
        let old = #"{"deviceId":"d","userKey":"u","totpSecret":"t","pushToken":"","localAuthType":"NONE"}"#
        #expect(try JSONDecoder().decode(DeviceState.self, from: Data(old.utf8)).appAttestKeyId == nil)
    }
}
