import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// A runtime for the App Attest HTTP tests: its clock at the minted cases' time, `appAttest.roots` the minted root,
/// randomness that can be told the next challenge (a minted attestation is made for a challenge fixed in advance),
/// a client and a signed-up device whose key the test holds, and the router under test.
struct AppAttestHTTPFixture {
    /// The admin token the runtime is configured with.
    static let adminToken = "test-admin-token"
    /// The headers of an admin call.
    static let admin: HTTPFields = [.authorization: "Bearer \(adminToken)", .contentType: "application/json"]

    /// The runtime under test.
    var runtime: TesseraRuntime
    /// Its router, as a test client.
    var http: any TestClientProtocol
    /// The client (bundle `org.example.tessera`).
    var client: Client
    /// The signed-up device.
    var deviceId: String
    /// Its device key, which signs its calls.
    var deviceKey: P256.Signing.PrivateKey
    /// The runtime's clock, at the minted cases' time.
    var clock: ManualClock
    /// The runtime's randomness.
    var random: ScriptedRandom
    /// The cases of mint.py.
    var minted: AppAttestFixtures.Minted

    /// Runs `body` with a fresh fixture on `kind`.
    static func run(_ kind: TestDatabase, _ body: @escaping @Sendable (AppAttestHTTPFixture) async throws -> Void) async throws {
        let minted = try await AppAttestFixtures.minted()
        let clock = ManualClock(start: Int64(minted.time * 1000))
        let random = ScriptedRandom()
        let rootFile = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-appattest-root-\(UUID().uuidString).pem")
        try Data(minted.rootPEM.utf8).write(to: rootFile)
        defer { try? FileManager.default.removeItem(at: rootFile) }
        try await withTestRuntime(kind, clock: clock.clock, random: random.source, configure: {
            $0.adminToken = adminToken
            $0.appAttestRoots = rootFile.path
        }) { runtime in
            let client = try await runtime.makeTestClient(bundle: "org.example.tessera")
            // The key the minted cases' challenges are bound to, as the server binds the challenges it issues.
            let deviceKey = try minted.fixtureKey()
            let deviceId = try await signUp(runtime, client, deviceKey: deviceKey)
            let router = runtime.makeRouter()
            let app = Application(router: router, server: try TesseraRuntime.httpServer(for: router), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                try await body(AppAttestHTTPFixture(
                    runtime: runtime, http: http, client: client, deviceId: deviceId, deviceKey: deviceKey, clock: clock, random: random,
                    minted: minted
                ))
            }
        }
    }

    /// Signs up a device of `client` with `deviceKey` (as `POST /v1/signup` does) and returns its ID.
    static func signUp(_ runtime: TesseraRuntime, _ client: Client, deviceKey: P256.Signing.PrivateKey) async throws -> String {
        let email = "alice@example.com"
        let token = try await SignUpFixtures.disposeToken(runtime, client, email: email)
        let request = SignUpFixtures.request(client, email: email, phone: "+41791234567", userKey: "alice", token: token, deviceKey: deviceKey)
        let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
        return try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone).deviceId
    }

    /// The settings of the minted cases' app: `policy`, their team and bundle, `environment`.
    static func settings(_ policy: String = "reported", environment: String = "development") -> AppAttestSettings {
        AppAttestSettings(policy: policy, teamId: "TESTTEAM42", bundleId: "org.example.tessera", environment: environment)
    }

    /// `PUT /v1/admin/clients/{clientKey}/app-attest` with `settings`; the answer.
    @discardableResult
    func putSettings(_ settings: AppAttestSettings) async throws -> TestResponse {
        try await putSettings(json: String(decoding: try JSONEncoder().encode(settings), as: UTF8.self))
    }

    /// `PUT /v1/admin/clients/{clientKey}/app-attest` with the body `json`; the answer.
    func putSettings(json: String, clientKey: String? = nil) async throws -> TestResponse {
        try await http.executeRequest(
            uri: "/v1/admin/clients/\(clientKey ?? client.clientKey)/app-attest", method: .put, headers: Self.admin, body: ByteBuffer(string: json)
        )
    }

    /// A signed device `POST` of `body` to `path`, as the device (with `client`'s headers, by default the device's).
    func post(_ path: String, body: Data = Data(), client: Client? = nil) async throws -> TestResponse {
        let signed = try MessageSignature.sign(
            method: "POST", path: path, body: body, keyId: deviceId, privateKey: deviceKey, nonce: UUID().uuidString,
            created: clock.clock.now() / 1000
        )
        var fields = HTTPFixtures.appHeaders(client ?? self.client)
        fields[HTTPField.Name("Content-Digest")!] = signed.contentDigest
        fields[HTTPField.Name("Signature-Input")!] = signed.signatureInput
        fields[HTTPField.Name("Signature")!] = signed.signature
        return try await http.executeRequest(uri: path, method: .post, headers: fields, body: ByteBuffer(bytes: body))
    }

    /// A challenge from `POST /v1/devices/app-attest/challenge`; the next one is `queued` when given (a minted case's).
    func challenge(queued: String? = nil) async throws -> String {
        // The server draws 16 random bytes and appends 16 of the device key's SHA-256: the case's challenge when the
        // case's first 16 bytes are drawn.
        if let queued { random.enqueue(Array(AppAttestFixtures.hex(queued).prefix(16))) }
        let response = try await post("/v1/devices/app-attest/challenge")
        try #require(response.status == .ok, "\(String(buffer: response.body))")
        #expect(response.headers[.cacheControl] == "no-store")
        return try JSONDecoder().decode(AppAttestChallenge.self, from: Data(buffer: response.body)).challenge
    }

    /// Posts the minted attestation case `attestation` with a challenge issued for it (or `challenge`).
    func attest(_ attestation: AppAttestFixtures.Case, challenge: String? = nil, keyId: String? = nil) async throws -> TestResponse {
        let issued = if let challenge { challenge } else { try await self.challenge(queued: attestation.challenge) }
        let body = AppAttestAttestationRequest(
            keyId: keyId ?? Data(AppAttestFixtures.hex(attestation.keyId)).base64EncodedString(),
            attestationObject: Data(AppAttestFixtures.hex(attestation.attestationObject)).base64EncodedString(), challenge: issued
        )
        return try await post("/v1/devices/app-attest/attestation", body: try JSONEncoder().encode(body))
    }

    /// Posts an assertion of the key of `attestation` with `counter` on a fresh challenge (or `challenge`).
    func assert(_ attestation: AppAttestFixtures.Case, counter: UInt32, challenge: String? = nil, clientDataChallenge: String? = nil) async throws -> TestResponse {
        let issued = if let challenge { challenge } else { try await self.challenge() }
        let (assertion, clientData) = try AppAttestFixtures.assertion(
            privateKey: AppAttestFixtures.hex(attestation.privateKey), app: attestation.app, challenge: clientDataChallenge ?? issued, counter: counter
        )
        let body = AppAttestAssertionRequest(
            assertion: Data(assertion).base64EncodedString(), clientData: Data(clientData).base64EncodedString(), challenge: issued
        )
        return try await post("/v1/devices/app-attest/assertion", body: try JSONEncoder().encode(body))
    }

    /// The App Attest state of the device in `GET /v1/admin/users`.
    func adminState() async throws -> AppAttestDeviceState {
        let response = try await http.executeRequest(uri: "/v1/admin/users?clientKey=\(client.clientKey)", method: .get, headers: Self.admin, body: nil)
        try #require(response.status == .ok)
        let page = try JSONDecoder().decode(AdminUserPage.self, from: Data(buffer: response.body))
        return try #require(page.users.flatMap(\.devices).first { $0.deviceId == deviceId }).appAttest
    }

    /// The code of the problem `body` throws (nil when it passes; an issue when it throws something else).
    static func refusal(_ body: () async throws -> Void) async -> ErrorCode? {
        do {
            try await body()
            return nil
        } catch let problem as AppError {
            return problem.code
        } catch {
            Issue.record("not a problem: \(error)")
            return nil
        }
    }

    /// The problem's code and field of `response` (nil when it is not a problem).
    static func problem(_ response: TestResponse) -> Problem? {
        try? JSONDecoder().decode(Problem.self, from: Data(buffer: response.body))
    }
}

/// Expects `response` to be a problem with `status` and `code` (and `field`, when given).
func expectProblem(
    _ response: TestResponse, _ status: HTTPResponse.Status, _ code: ErrorCode, field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    let problem = AppAttestHTTPFixture.problem(response)
    #expect(response.status == status, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
    #expect(response.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
    #expect(problem?.code == code.rawValue, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
    if let field { #expect(problem?.field == field, "\(String(buffer: response.body))", sourceLocation: sourceLocation) }
}
