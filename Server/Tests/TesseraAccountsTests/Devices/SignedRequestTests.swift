import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// RFC 9421 signed device requests: each way a request can be wrong has its own code.
@Suite("Signed device requests")
struct SignedRequestTests {
    static let path = "/v1/device-test/echo"

    struct Fixture: Sendable {
        let deviceKey = P256.Signing.PrivateKey()
        let otherKey = P256.Signing.PrivateKey()
        let keys = MemoryDeviceKeyLookup<DeviceAuthTarget?>()
        let manual = ManualClock()
        var nowSeconds: Int64 { manual.clock.now() / 1000 }

        func headers(
            body: String, keyId: String = "dev_1", key: P256.Signing.PrivateKey? = nil, nonce: String = UUID().uuidString,
            created: Int64? = nil, method: String = "POST", path: String = SignedRequestTests.path
        ) throws -> HTTPFields {
            let signed = try MessageSignature.sign(
                method: method, path: path, body: Data(body.utf8), keyId: keyId, privateKey: key ?? deviceKey, nonce: nonce,
                created: created ?? nowSeconds
            )
            var fields: HTTPFields = [.contentType: "application/json"]
            fields[HTTPField.Name("Content-Digest")!] = signed.contentDigest
            fields[HTTPField.Name("Signature-Input")!] = signed.signatureInput
            fields[HTTPField.Name("Signature")!] = signed.signature
            return fields
        }
    }

    func withSignedRouter(_ kind: TestDatabase, _ body: @escaping @Sendable (Fixture, any TestClientProtocol) async throws -> Void) async throws {
        let fixture = Fixture()
        fixture.keys.add(DeviceSigningKey(deviceId: "dev_1", publicKey: fixture.deviceKey.publicKey, revoked: false))
        fixture.keys.add(DeviceSigningKey(deviceId: "dev_revoked", publicKey: fixture.deviceKey.publicKey, revoked: true))
        try await withTestRuntime(kind, clock: fixture.manual.clock) { runtime in
            let router = Router(context: TesseraRequestContext.self)
            router.middlewares.add(ProblemMiddleware(bodyLimit: 65536, routes: RouteTable()))
            let verifier = SignedRequestVerifier(database: runtime.database, keys: fixture.keys, clock: fixture.manual.clock)
            router.group("v1/device-test").add(middleware: SignedRequestMiddleware(verifier: verifier, bodyLimit: 65536))
                .post("echo") { _, context in context.deviceId ?? "none" }
            try await Application(router: router, logger: TestDatabase.logger).test(.router) { http in
                try await body(fixture, http)
            }
        }
    }

    func expectCode(_ response: TestResponse, _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let problem = try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body))
        #expect(problem.code == code.rawValue, "got \(problem.code) \(problem.title)", sourceLocation: sourceLocation)
    }

    @Test("a good signature passes once; its replay, an old or future created, a changed body, another key, no signature each get their code",
          arguments: TestDatabase.kinds)
    func rejections(kind: TestDatabase) async throws {
        try await withSignedRouter(kind) { fixture, http in
            let body = #"{"hello":"world"}"#
            let good = try fixture.headers(body: body, nonce: "nonce-1")
            try await http.run(uri: Self.path, method: .post, headers: good, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "dev_1")
            }
            // The same request again: replayed nonce.
            try await http.run(uri: Self.path, method: .post, headers: good, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .unauthorized)
                try expectCode(response, .nonceReplayed)
            }
            // created 6 minutes ago, and 6 minutes ahead.
            for offset: Int64 in [-360, 360] {
                let stale = try fixture.headers(body: body, created: fixture.nowSeconds + offset)
                try await http.run(uri: Self.path, method: .post, headers: stale, body: ByteBuffer(string: body)) { response in
                    try expectCode(response, .signatureExpired)
                }
            }
            // Body changed after signing.
            let signedForOther = try fixture.headers(body: body)
            try await http.run(uri: Self.path, method: .post, headers: signedForOther, body: ByteBuffer(string: #"{"hello":"mallory"}"#)) { response in
                try expectCode(response, .contentDigestMismatch)
            }
            // Signed by another key under this device's id.
            let forged = try fixture.headers(body: body, key: fixture.otherKey)
            try await http.run(uri: Self.path, method: .post, headers: forged, body: ByteBuffer(string: body)) { response in
                try expectCode(response, .signatureInvalid)
            }
            // Signed for another path, replayed here.
            let otherPath = try fixture.headers(body: body, path: "/v1/device-test/other")
            try await http.run(uri: Self.path, method: .post, headers: otherPath, body: ByteBuffer(string: body)) { response in
                try expectCode(response, .signatureInvalid)
            }
            // No signature at all.
            try await http.run(uri: Self.path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { response in
                #expect(response.status == .unauthorized)
                try expectCode(response, .signatureMissing)
            }
            // Unknown and revoked devices.
            try await http.run(uri: Self.path, method: .post, headers: try fixture.headers(body: body, keyId: "dev_nobody"), body: ByteBuffer(string: body)) { response in
                try expectCode(response, .deviceUnknown)
            }
            try await http.run(uri: Self.path, method: .post, headers: try fixture.headers(body: body, keyId: "dev_revoked"), body: ByteBuffer(string: body)) { response in
                #expect(response.status == .forbidden)
                try expectCode(response, .deviceRevoked)
            }
            // Malformed headers.
            var malformed = good
            malformed[HTTPField.Name("Signature-Input")!] = #"tessera=("@method");created=1;nonce="n";keyid="dev_1";alg="ecdsa-p256-sha256""#
            try await http.run(uri: Self.path, method: .post, headers: malformed, body: ByteBuffer(string: body)) { response in
                try expectCode(response, .signatureMalformed)
            }
            malformed[HTTPField.Name("Signature-Input")!] = "garbage"
            try await http.run(uri: Self.path, method: .post, headers: malformed, body: ByteBuffer(string: body)) { response in
                try expectCode(response, .signatureMalformed)
            }
        }
    }

    @Test("a nonce is remembered in the database, so a second verifier (another instance) refuses the replay", arguments: TestDatabase.kinds)
    func replayAcrossInstances(kind: TestDatabase) async throws {
        let fixture = Fixture()
        fixture.keys.add(DeviceSigningKey(deviceId: "dev_1", publicKey: fixture.deviceKey.publicKey, revoked: false))
        try await withTestRuntime(kind, clock: fixture.manual.clock) { runtime in
            let first = SignedRequestVerifier(database: runtime.database, keys: fixture.keys, clock: fixture.manual.clock)
            let second = SignedRequestVerifier(database: runtime.database, keys: fixture.keys, clock: fixture.manual.clock)
            let headers = try fixture.headers(body: "{}", nonce: "shared")
            _ = try await first.verify(method: "POST", path: Self.path, headers: headers, body: ByteBuffer(string: "{}"))
            do {
                _ = try await second.verify(method: "POST", path: Self.path, headers: headers, body: ByteBuffer(string: "{}"))
                Issue.record("replay accepted by the second instance")
            } catch let error as AppError {
                #expect(error.code == .nonceReplayed)
            }
        }
    }

    @Test("concurrent requests: a nonce sent 16 times at once passes once, 16 distinct nonces each pass", arguments: TestDatabase.kinds)
    func concurrentReplays(kind: TestDatabase) async throws {
        let fixture = Fixture()
        fixture.keys.add(DeviceSigningKey(deviceId: "dev_1", publicKey: fixture.deviceKey.publicKey, revoked: false))
        try await withTestRuntime(kind, clock: fixture.manual.clock) { runtime in
            // One verifier, as the server has: on PostgreSQL the nonces of concurrent requests go in one statement.
            let verifier = SignedRequestVerifier(database: runtime.database, keys: fixture.keys, clock: fixture.manual.clock)
            let nonces = Array(repeating: "same", count: 16) + (0..<16).map { "distinct-\($0)" }
            let outcomes = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                for nonce in nonces {
                    let headers = try fixture.headers(body: "{}", nonce: nonce)
                    group.addTask {
                        do {
                            _ = try await verifier.verify(method: "POST", path: Self.path, headers: headers, body: ByteBuffer(string: "{}"))
                            return (nonce, true)
                        } catch let error as AppError where error.code == .nonceReplayed {
                            return (nonce, false)
                        }
                    }
                }
                return try await group.reduce(into: [(String, Bool)]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0.0 == "same" && $0.1 }.count == 1, "the repeated nonce passed once")
            #expect(outcomes.filter { $0.0 != "same" && $0.1 }.count == 16, "each distinct nonce passed")
        }
    }

    @Test("the signature base follows RFC 9421 §2.5")
    func signatureBaseShape() throws {
        let params = MessageSignature.signatureParams(created: 1_700_000_000, nonce: "abc", keyId: "dev_1")
        #expect(params == #"("@method" "@path" "content-digest");created=1700000000;nonce="abc";keyid="dev_1";alg="ecdsa-p256-sha256""#)
        let base = MessageSignature.signatureBase(method: "post", path: "/v1/x", contentDigest: "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:", signatureParams: params)
        #expect(base == """
            "@method": POST
            "@path": /v1/x
            "content-digest": sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:
            "@signature-params": \(params)
            """)
        // RFC 9530 §2's example: the SHA-256 digest of {"hello": "world"}.
        #expect(MessageSignature.contentDigest(of: Data(#"{"hello": "world"}"#.utf8)) == "sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:")
    }

    @Test("a fresh nonce is 128 random bits in base64url: 22 characters, never the same twice, and a request signed with it verifies",
          arguments: TestDatabase.kinds)
    func randomNonces(kind: TestDatabase) async throws {
        let nonces = (0..<2000).map { _ in MessageSignature.randomNonce() }
        #expect(Set(nonces).count == nonces.count)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for nonce in nonces {
            #expect(nonce.utf8.count == 22 && nonce.utf8.allSatisfy(alphabet.contains), "\(nonce)")
            #expect(Data(base64URLEncoded: nonce)?.count == 16, "\(nonce)")
        }
        // Every bit position takes both values across the draws (a constant or truncated source would not).
        let words = nonces.compactMap { Data(base64URLEncoded: $0) }.map { $0.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) } }
        #expect(words.reduce(UInt64(0)) { $0 | $1.0 } == .max && words.reduce(UInt64.max) { $0 & $1.0 } == 0)
        #expect(words.reduce(UInt64(0)) { $0 | $1.1 } == .max && words.reduce(UInt64.max) { $0 & $1.1 } == 0)
        try await withSignedRouter(kind) { fixture, http in
            try await http.run(uri: Self.path, method: .post, headers: try fixture.headers(body: "{}", nonce: MessageSignature.randomNonce()), body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "dev_1")
            }
        }
    }

    // MARK: Interop with a reference implementation (PyPI http-message-signatures), both directions.


    static func runInterop(_ mode: String, _ spec: [String: Any]) async throws -> String {
        let python = try TestRequirements.python(importing: ["http_message_signatures"], for: "the RFC 9421 reference interop test")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/rfc9421_interop.py").path
        let input = try JSONSerialization.data(withJSONObject: spec)
        // On a thread of its own: the test process's concurrency threads stay free for the other tests.
        return try await ChildProcess.onOwnThread { () throws -> String in
            let process = try ChildProcess(python, [script, mode], stdin: .pipe, stdout: .pipe, stderr: .pipe)
            try process.input?.write(contentsOf: input)
            try process.input?.close()
            let out = ChildProcess.readAll(process.output!)
            let err = ChildProcess.readAll(process.errors!)
            guard process.waitUntilExit() == 0 else {
                throw ConfigurationError("reference implementation failed: \(String(decoding: err, as: UTF8.self))")
            }
            return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("the reference implementation verifies Tessera's signatures, and Tessera verifies the reference's")
    func referenceInterop() async throws {
        let key = P256.Signing.PrivateKey()
        let body = #"{"deviceName":"phone"}"#
        let signed = try MessageSignature.sign(
            method: "POST", path: Self.path, body: Data(body.utf8), keyId: "dev_1", privateKey: key, nonce: "n-swift",
            created: Int64(Date().timeIntervalSince1970)
        )
        let verified = try await Self.runInterop("verify", [
            "method": "POST", "url": "http://127.0.0.1:8080\(Self.path)", "body": body, "keyid": "dev_1",
            "public_key_pem": key.publicKey.pemRepresentation,
            "headers": [
                "Content-Type": "application/json", "Content-Digest": signed.contentDigest,
                "Signature-Input": signed.signatureInput, "Signature": signed.signature,
            ],
        ])
        #expect(verified == "verified")

        let keys = MemoryDeviceKeyLookup<Void>()
        keys.add(DeviceSigningKey(deviceId: "dev_1", publicKey: key.publicKey, revoked: false))
        let headersJSON = try await Self.runInterop("sign", [
            "method": "POST", "url": "http://127.0.0.1:8080\(Self.path)", "body": body, "keyid": "dev_1",
            "private_key_pem": key.pemRepresentation, "nonce": "n-python",
        ])
        let headers = try JSONDecoder().decode([String: String].self, from: Data(headersJSON.utf8))
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        try await withTestRuntime(.sqlite) { runtime in
            let verifier = SignedRequestVerifier(database: runtime.database, keys: keys, clock: .system)
            let result = try await verifier.verify(method: "POST", path: Self.path, headers: fields, body: ByteBuffer(string: body))
            #expect(result.deviceId == "dev_1" && result.nonce == "n-python")
        }
    }
}
