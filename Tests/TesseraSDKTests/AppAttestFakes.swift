import Crypto
import Foundation
import Synchronization
import Tessera
import TesseraCore

/// A fake of Apple's App Attest (`DCAppAttestService`), which cannot run on Linux: it records what the SDK asks,
/// answers with made-up key IDs and objects that name the key and the hash they were made for
/// (`attestation|<keyId>|<hash hex>`, `assertion|<keyId>|<hash hex>`), and throws what a test scripts.
final class FakeAppAttestService: AppAttestProvider {
    struct Calls {
        var generatedKeys: [String] = []
        var attested: [(keyId: String, clientDataHash: Data)] = []
        var asserted: [(keyId: String, clientDataHash: Data)] = []
    }

    let isSupported: Bool
    let calls = Mutex(Calls())
    /// Thrown by the next `attestKey` or `generateAssertion` when set.
    let failure = Mutex<(any Error & Sendable)?>(nil)

    init(isSupported: Bool = true) {
        self.isSupported = isSupported
    }

    func generateKey() async throws -> String {
        calls.withLock { calls in
            let keyId = Data(SHA256.hash(data: Data("key \(calls.generatedKeys.count)".utf8))).base64EncodedString()
            calls.generatedKeys.append(keyId)
            return keyId
        }
    }

    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        if let error = failure.withLock({ $0.take() }) { throw error }
        calls.withLock { $0.attested.append((keyId, clientDataHash)) }
        return Self.object("attestation", keyId, clientDataHash)
    }

    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        if let error = failure.withLock({ $0.take() }) { throw error }
        calls.withLock { $0.asserted.append((keyId, clientDataHash)) }
        return Self.object("assertion", keyId, clientDataHash)
    }

    /// `<kind>|<keyId>|<hash hex>`: what the stub server reads back.
    static func object(_ kind: String, _ keyId: String, _ hash: Data) -> Data {
        Data("\(kind)|\(keyId)|\(hash.map { String(format: "%02x", $0) }.joined())".utf8)
    }
}

/// Plays the server's App Attest routes for the SDK's tests (the real ones run in Server/Tests): checks each
/// request's RFC 9421 signature against the device key in `keyStore`, issues single-use challenges of 32 bytes
/// (base64url), and verifies what the fake service made the way the server verifies Apple's: the attestation's hash
/// is SHA-256 of the challenge's bytes, the assertion's is SHA-256 of the client data, whose `challenge` is the one
/// sent. Answers a scripted problem for a path when told to.
final class StubAppAttestServer: HTTPTransport {
    struct State {
        var requests: [(path: String, body: Data)] = []
        var issued: [String] = []
        var used: Set<String> = []
        var attestedKeyId: String?
        var counter: Int64 = 0
        /// Path → the problem to answer with, once.
        var refusals: [String: Problem] = [:]
    }

    let keyStore: MemoryKeyStore
    let deviceId: String
    let state = Mutex(State())

    init(keyStore: MemoryKeyStore, deviceId: String) {
        self.keyStore = keyStore
        self.deviceId = deviceId
    }

    /// Answers the next request to `path` with the problem `code` (status `status`).
    func refuse(_ path: String, code: ErrorCode, status: Int) {
        state.withLock { $0.refusals[path] = Problem(code: code, status: status, title: code.name, detail: "scripted \(code.rawValue)") }
    }

    var paths: [String] { state.withLock { $0.requests.map(\.path) } }

    func send(method: String, url: URL, headers: [String: String], body: Data?) async throws -> HTTPAnswer {
        let body = body ?? Data()
        state.withLock { $0.requests.append((url.path, body)) }
        guard method == "POST", try verifySignature(path: url.path, headers: headers, body: body) else {
            return problem(Problem(code: .signatureInvalid, status: 401, title: "signature"))
        }
        if let refusal = state.withLock({ $0.refusals.removeValue(forKey: url.path) }) { return problem(refusal) }
        switch url.path {
        case "/v1/devices/app-attest/challenge":
            let challenge = state.withLock { state in
                let bytes = Data(SHA256.hash(data: Data("challenge \(state.issued.count)".utf8)))
                let text = MessageSignature.base64URL(bytes)
                state.issued.append(text)
                return text
            }
            return HTTPAnswer(status: 200, body: Data(#"{"challenge":"\#(challenge)","expiresIn":300}"#.utf8))
        case "/v1/devices/app-attest/attestation":
            let request = try JSONDecoder().decode(AppAttestAttestationRequest.self, from: body)
            guard let challengeBytes = try consume(request.challenge) else { return problem(Problem(code: .appAttestChallengeUnknown, status: 401, title: "challenge")) }
            let object = Data(base64Encoded: request.attestationObject) ?? Data()
            guard object == FakeAppAttestService.object("attestation", request.keyId, Data(SHA256.hash(data: challengeBytes))) else {
                return problem(Problem(code: .appAttestNonceMismatch, status: 401, title: "nonce"))
            }
            state.withLock {
                $0.attestedKeyId = request.keyId
                $0.counter = 0
            }
            let answer = AppAttestDeviceState(attested: true, keyId: request.keyId, environment: "development", attestedAt: 1_700_000_000_000, counter: 0)
            return HTTPAnswer(status: 201, body: try JSONEncoder().encode(answer))
        case "/v1/devices/app-attest/assertion":
            let request = try JSONDecoder().decode(AppAttestAssertionRequest.self, from: body)
            guard try consume(request.challenge) != nil else { return problem(Problem(code: .appAttestChallengeUnknown, status: 401, title: "challenge")) }
            guard let keyId = state.withLock({ $0.attestedKeyId }) else { return problem(Problem(code: .appAttestDeviceNotAttested, status: 404, title: "not attested")) }
            let clientData = Data(base64Encoded: request.clientData) ?? Data()
            let object = try? JSONSerialization.jsonObject(with: clientData) as? [String: Any]
            guard object?["challenge"] as? String == request.challenge else {
                return problem(Problem(code: .appAttestClientDataMismatch, status: 401, title: "client data"))
            }
            guard Data(base64Encoded: request.assertion) == FakeAppAttestService.object("assertion", keyId, Data(SHA256.hash(data: clientData))) else {
                return problem(Problem(code: .appAttestBadSignature, status: 401, title: "signature"))
            }
            let counter = state.withLock { state in
                state.counter += 1
                return state.counter
            }
            return HTTPAnswer(status: 200, body: try JSONEncoder().encode(AppAttestAssertionResult(counter: counter)))
        default:
            return problem(Problem(code: .notFound, status: 404, title: "not found"))
        }
    }

    func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
        throw OfflineTransport.Offline()
    }

    /// The challenge's bytes when it was issued and not used yet (and marks it used), else nil.
    private func consume(_ challenge: String) throws -> Data? {
        let fresh = state.withLock { state in
            guard state.issued.contains(challenge), !state.used.contains(challenge) else { return false }
            state.used.insert(challenge)
            return true
        }
        guard fresh else { return nil }
        var base64 = challenge.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// Whether the request is signed by the device key as `deviceId`, over this method, path and body.
    private func verifySignature(path: String, headers: [String: String], body: Data) throws -> Bool {
        guard let input = headers["Signature-Input"], let signature = headers["Signature"], let digest = headers["Content-Digest"],
              digest == MessageSignature.contentDigest(of: body), let key = try keyStore.deviceKeyPublic()
        else { return false }
        let parsed = try MessageSignature.parse(signatureInput: input, signature: signature)
        let base = MessageSignature.signatureBase(method: "POST", path: path, contentDigest: digest, signatureParams: parsed.signatureParams)
        guard parsed.keyId == deviceId, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature) else { return false }
        return key.isValidSignature(ecdsa, for: Data(base.utf8))
    }

    private func problem(_ problem: Problem) -> HTTPAnswer {
        HTTPAnswer(status: problem.status, body: (try? JSONEncoder().encode(problem)) ?? Data())
    }
}
