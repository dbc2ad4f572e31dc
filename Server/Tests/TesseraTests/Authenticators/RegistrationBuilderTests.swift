import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TesseraTestSupport
import Tessera
import TesseraAsyncHTTPClient
import TesseraTesting
import TesseraCore

/// The authenticator registration builder (Nevis-style): required parts, server URL rules, PIN rules
/// on the device, biometric invalidation. Network steps run against a stand-in for the server's
/// authenticator routes on loopback (named as such), never a real server.
@Suite("SDK: authenticator registration builder")
struct RegistrationBuilderTests {
    // MARK: Helpers

    /// Plays the server's `/v1/policy` and `/v1/devices/authenticators` routes: answers a fixed policy
    /// and records what it receives. It checks nothing itself; the tests check what it recorded.
    final class ServerStandIn: Sendable {
        struct Received: Sendable {
            var request: AuthenticatorRegistrationRequest
            var signatureInput: String?
            var appAuth: String?
        }

        private struct State {
            var received: [Received] = []
            var registered: [AuthenticatorInfo] = []
            var deletedIds: [String] = []
        }

        let policy: ClientPolicy
        private let state = Mutex(State())

        init(policy: ClientPolicy) { self.policy = policy }

        var registrations: [Received] { state.withLock { $0.received } }
        var deleted: [String] { state.withLock { $0.deletedIds } }
        var list: AuthenticatorList { state.withLock { AuthenticatorList(authenticators: $0.registered) } }

        func register(_ request: AuthenticatorRegistrationRequest, signatureInput: String?, appAuth: String?) -> AuthenticatorInfo {
            state.withLock { state in
                state.received.append(Received(request: request, signatureInput: signatureInput, appAuth: appAuth))
                let info = AuthenticatorInfo(
                    id: "atr_\(state.received.count)", deviceId: "dev_test1", aaid: request.aaid, type: AuthenticatorType(aaid: request.aaid) ?? .pin,
                    publicKey: request.publicKey, allowDevicePasscodeAsFallback: request.allowDevicePasscodeAsFallback,
                    invalidateOnNewOsBiometrics: request.invalidateOnNewOsBiometrics, createdAt: 1_800_000_000_000
                )
                state.registered.append(info)
                return info
            }
        }

        func delete(_ id: String) { state.withLock { state in state.deletedIds.append(id); state.registered.removeAll { $0.id == id } } }
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(value)))
        )
    }

    func withServerStandIn(
        policy: ClientPolicy = ClientPolicy(), _ body: @escaping @Sendable (ServerStandIn, URL) async throws -> Void
    ) async throws {
        let standIn = ServerStandIn(policy: policy)
        let router = Router()
        router.get("v1/policy") { _, _ -> Response in try Self.json(standIn.policy) }
        router.post("v1/devices/authenticators") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 64 * 1024)
            let decoded = try JSONDecoder().decode(AuthenticatorRegistrationRequest.self, from: Data(buffer.readableBytesView))
            let info = standIn.register(
                decoded, signatureInput: request.headers[HTTPField.Name("Signature-Input")!], appAuth: request.headers[HTTPField.Name("X-App-Auth")!]
            )
            return try Self.json(info, status: .created)
        }
        router.get("v1/devices/authenticators") { _, _ -> Response in try Self.json(standIn.list) }
        router.delete("v1/devices/authenticators/{id}") { _, context -> Response in
            standIn.delete(try context.parameters.require("id"))
            return Response(status: .noContent)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { http in
            try await body(standIn, URL(string: "http://127.0.0.1:\(http.port!)")!)
        }
    }

    /// Nothing listens on port 1 of the loopback.
    static let closedURL = URL(string: "http://127.0.0.1:1")!

    final class Lines: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ line: String) { list.withLock { $0.append(line) } }
        var all: [String] { list.withLock { $0 } }
    }

    /// A client whose device is registered (device key and id `dev_test1`), as after sign-up.
    static func enrolledClient(
        _ url: URL, keyStore: MemoryKeyStore = MemoryKeyStore(), log: Lines? = nil
    ) throws -> TesseraClient {
        _ = try keyStore.generateKeys(unlockSecret: nil)
        try keyStore.saveState(DeviceState(deviceId: "dev_test1", userKey: "alice", totpSecret: "", pushToken: "", localAuthType: .pin))
        var handler: TesseraClient.LogHandler?
        if let log { handler = { log.add($0) } }
        return TesseraClient(
            configuration: .init(serverURL: url, clientKey: "tck_test", bundleIdentifier: "com.example.reg", timeout: .seconds(5)),
            keyStore: keyStore, onTotalLog: handler
        )
    }

    /// Chooses a fixed type and records what it was shown.
    final class RecordingSelector: AuthenticatorSelector, Sendable {
        private let seen = Mutex<[AuthenticatorSelectionContext]>([])
        let choice: AuthenticatorType?
        init(_ choice: AuthenticatorType?) { self.choice = choice }
        var contexts: [AuthenticatorSelectionContext] { seen.withLock { $0 } }
        func selectAuthenticator(context: AuthenticatorSelectionContext) async throws -> AuthenticatorType? {
            seen.withLock { $0.append(context) }
            return choice
        }
    }

    /// Answers PINs and passwords from a list (the last one repeated) and records each ask.
    final class ScriptedEnroller: PinEnroller, PasswordEnroller, Sendable {
        private struct State {
            var answers: [String]
            var pinAsks: [PinEnrollmentContext] = []
            var passwordAsks: [PasswordEnrollmentContext] = []
            mutating func next() -> String { answers.count > 1 ? answers.removeFirst() : answers[0] }
        }

        private let state: Mutex<State>
        init(_ answers: [String]) { state = Mutex(State(answers: answers)) }
        var pinContexts: [PinEnrollmentContext] { state.withLock { $0.pinAsks } }
        var passwordContexts: [PasswordEnrollmentContext] { state.withLock { $0.passwordAsks } }
        func enrollPin(context: PinEnrollmentContext) async throws -> String {
            state.withLock { $0.pinAsks.append(context); return $0.next() }
        }
        func enrollPassword(context: PasswordEnrollmentContext) async throws -> String {
            state.withLock { $0.passwordAsks.append(context); return $0.next() }
        }
    }

    /// Runs the callback form: a synchronous context picks `execute()` without result.
    static func executeWithCallbacks(_ registration: Registration) { registration.execute() }

    /// Collects the callbacks of one callback-form run.
    final class Outcomes: Sendable {
        private struct State {
            var successes: [AuthenticatorInfo] = []
            var errors: [OperationError] = []
        }

        private let state = Mutex(State())
        var all: (successes: [AuthenticatorInfo], errors: [OperationError]) { state.withLock { ($0.successes, $0.errors) } }
        func success(_ info: AuthenticatorInfo) { state.withLock { $0.successes.append(info) } }
        func error(_ error: OperationError) { state.withLock { $0.errors.append(error) } }

        /// Waits until a callback ran. The callback form runs one task that ends in exactly one
        /// callback, so once one arrived the operation is over and the counts can be asserted.
        func settle() async throws {
            _ = await eventually { self.state.withLock { !$0.successes.isEmpty || !$0.errors.isEmpty } }
        }
    }

    // MARK: Required parts

    @Test("missing username, selector, or every verifier and enroller: each its own error, before any network call")
    func requiredParts() async throws {
        let client = TesseraClient(configuration: .init(serverURL: Self.closedURL, clientKey: "tck_test", bundleIdentifier: "com.example.reg", timeout: .sdkTestDeadline), keyStore: MemoryKeyStore())
        let selector = RecordingSelector(.pin)

        await #expect(throws: OperationError.missingParameter(.username)) {
            try await client.registration().authenticatorSelector(selector).pinEnroller(ScriptedEnroller(["482913"])).execute()
        }
        await #expect(throws: OperationError.missingParameter(.username)) {
            try await client.registration().username("").authenticatorSelector(selector).pinEnroller(ScriptedEnroller(["482913"])).execute()
        }
        await #expect(throws: OperationError.missingParameter(.authenticatorSelector)) {
            try await client.registration().username("alice").pinEnroller(ScriptedEnroller(["482913"])).execute()
        }
        await #expect(throws: OperationError.missingParameter(.userVerifierOrEnroller)) {
            try await client.registration().username("alice").authenticatorSelector(selector).execute()
        }
        // Any one of the four parts is enough to pass the check (it then fails on the unregistered device).
        await #expect(throws: OperationError.deviceNotRegistered) {
            try await client.registration().username("alice").authenticatorSelector(selector)
                .biometricUserVerifier(MockBiometricUserVerifier()).execute()
        }
        #expect(selector.contexts.isEmpty)
    }

    @Test("callback form: a missing onSuccess goes to onError; a missing onError is logged and nothing runs")
    func callbackParts() async throws {
        let lines = Lines()
        let client = try Self.enrolledClient(Self.closedURL, log: lines)
        let selector = RecordingSelector(.pin)
        let complete = { client.registration().username("alice").authenticatorSelector(selector).pinEnroller(ScriptedEnroller(["482913"])) }

        let missingSuccess = Outcomes()
        Self.executeWithCallbacks(complete().onError { missingSuccess.error($0) })
        try await missingSuccess.settle()
        #expect(missingSuccess.all.errors == [.missingParameter(.onSuccess)])

        let missingError = Outcomes()
        let registration = complete().onSuccess { missingError.success($0) }
        #expect(throws: OperationError.missingParameter(.onError)) { try registration.validate(requiringCallbacks: true) }
        // Without onError the callback form logs and returns before starting anything: no task runs.
        Self.executeWithCallbacks(registration)
        #expect(missingError.all.successes.isEmpty)
        #expect(lines.all.contains { $0.contains("onError is required") })
        #expect(selector.contexts.isEmpty)

        // The callback form without username reports that first.
        let missingUser = Outcomes()
        Self.executeWithCallbacks(client.registration().authenticatorSelector(selector).onSuccess { missingUser.success($0) }
            .onError { missingUser.error($0) })
        try await missingUser.settle()
        #expect(missingUser.all.errors == [.missingParameter(.username)])
    }

    @Test("the async form needs no callbacks: it goes as far as the network (closed port → network error); so does a complete callback form")
    func asyncFormWithoutCallbacks() async throws {
        let client = try Self.enrolledClient(Self.closedURL)
        let selector = RecordingSelector(.pin)
        let registration = client.registration().username("alice").authenticatorSelector(selector).pinEnroller(ScriptedEnroller(["482913"]))
        do {
            try await registration.execute()
            Issue.record("registration against a closed port succeeded")
        } catch {
            #expect(error.isNetworkError, "\(error)")
            #expect(error.kind == .server)
        }
        #expect(selector.contexts.isEmpty)

        let outcomes = Outcomes()
        Self.executeWithCallbacks(registration.onSuccess { outcomes.success($0) }.onError { outcomes.error($0) })
        try await outcomes.settle()
        #expect(outcomes.all.successes.isEmpty)
        #expect(outcomes.all.errors.count == 1)
        #expect(outcomes.all.errors.first?.isNetworkError == true)
    }

    // MARK: Server URL

    @Test("serverUrl: scheme, host and port of the provided URL, path of the configured one", arguments: [
        ("https://server/path", "https://other.server", "https://other.server/path"),
        ("https://server:443/path", "https://other.server/path", "https://other.server/path"),
        ("https://server/path", "http://other.server:80/otherpath", "http://other.server:80/path"),
        ("https://server", "https://other.server:8443/x/y", "https://other.server:8443"),
    ])
    func serverURLRules(base: String, provided: String, expected: String) throws {
        let combined = try Registration.combinedServerURL(base: URL(string: base)!, provided: URL(string: provided)!)
        #expect(combined.absoluteString == expected)
    }

    @Test("serverUrl without scheme or host is refused")
    func serverURLWithoutHost() {
        #expect(throws: OperationError.self) {
            try Registration.combinedServerURL(base: URL(string: "https://server/path")!, provided: URL(string: "other.server")!)
        }
    }

    // MARK: PIN and password rules on the device

    @Test("a PIN breaking the rules is asked for again with the reason; a compliant one is accepted; three bad ones fail")
    func pinRetries() async throws {
        let rules = PINRules()
        let enroller = ScriptedEnroller(["12345", "111111", "482913"])
        let pin = try await Registration.enrollPin(with: enroller, username: "alice", rules: rules)
        #expect(pin == "482913")
        #expect(enroller.pinContexts.count == 3)
        #expect(enroller.pinContexts.map { $0.lastRecoverableError?.remainingAttempts } == [nil, 2, 1])
        #expect(enroller.pinContexts[1].lastRecoverableError?.message == rules.violation(of: "12345"))
        #expect(enroller.pinContexts.allSatisfy { $0.username == "alice" && $0.policy == rules })

        let firstTime = ScriptedEnroller(["482913"])
        #expect(try await Registration.enrollPin(with: firstTime, username: "alice", rules: rules) == "482913")
        #expect(firstTime.pinContexts.count == 1)

        let stubborn = ScriptedEnroller(["123456"])
        do {
            _ = try await Registration.enrollPin(with: stubborn, username: "alice", rules: rules)
            Issue.record("a sequential PIN was accepted")
        } catch {
            #expect(error.kind == .policyViolation)
            #expect(error.code == .pinPolicyViolation)
        }
        #expect(stubborn.pinContexts.count == Registration.maxEnrollmentAttempts)

        let passwords = ScriptedEnroller(["short1", "longenough", "longenough1"])
        #expect(try await Registration.enrollPassword(with: passwords, username: "alice", rules: PasswordRules()) == "longenough1")
        #expect(passwords.passwordContexts.count == 3)
    }

    @Test("PIN registration end to end against the stand-in: retried PIN, proof of possession, signed request, combined server URL")
    func pinRegistration() async throws {
        try await withServerStandIn { standIn, url in
            // The configured server is closed: only the combined URL (scheme, host, port of serverUrl) reaches the stand-in.
            let client = try Self.enrolledClient(Self.closedURL)
            let enroller = ScriptedEnroller(["1234", "482913"])
            let info = try await client.registration()
                .username("alice")
                .serverUrl(url.appendingPathComponent("ignored"))
                .authorizationProvider(StaticAuthorizationProvider(headers: ["X-App-Auth": "app-token"]))
                .deviceInformation(DeviceInformation(name: "Alice's phone", fcmRegistrationToken: "fcm-1"))
                .authenticatorSelector(RecordingSelector(.pin))
                .pinEnroller(enroller)
                .execute()
            #expect(enroller.pinContexts.count == 2)
            let received = try #require(standIn.registrations.first)
            #expect(standIn.registrations.count == 1)
            #expect(received.request.pin == "482913")
            #expect(received.request.password == nil)
            #expect(received.request.aaid == AuthenticatorType.pin.aaid)
            #expect(received.request.deviceName == "Alice's phone")
            #expect(received.request.pushToken == "fcm-1")
            #expect(received.appAuth == "app-token")
            #expect(received.signatureInput?.contains("keyid=\"dev_test1\"") == true)
            let key = try P256.Signing.PublicKey(x963Representation: try #require(Data(base64Encoded: received.request.publicKey)))
            let proof = try P256.Signing.ECDSASignature(derRepresentation: try #require(Data(base64Encoded: received.request.keySignature)))
            #expect(key.isValidSignature(
                proof, for: AuthenticatorRegistrationRequest.proofBytes(deviceId: "dev_test1", aaid: received.request.aaid, publicKey: received.request.publicKey)
            ))
            #expect(info.id == "atr_1")
            #expect(info.type == .pin)

            // The key stays on the device, unlocked by the PIN only.
            let challenge = Data("challenge".utf8)
            #expect(key.isValidSignature(try client.signWithAuthenticator(.pin, data: challenge, unlockSecret: "482913"), for: challenge))
            #expect(throws: FidoErrorCode.authenticatorAccessDenied) { try client.signWithAuthenticator(.pin, data: challenge, unlockSecret: "000000") }

            // A second PIN registration is refused on the device (the stand-in lists one) and keeps the working key.
            let sameServer = try Self.enrolledClient(url, keyStore: client.keyStore as! MemoryKeyStore)
            await #expect(throws: OperationError.server(TesseraError(code: .authenticatorExists, message: "This device already has an active pin authenticator: delete it first"))) {
                try await sameServer.registration().username("alice").authenticatorSelector(RecordingSelector(.pin))
                    .pinEnroller(ScriptedEnroller(["482913"])).execute()
            }
            #expect(standIn.registrations.count == 1)
            #expect(key.isValidSignature(try client.signWithAuthenticator(.pin, data: challenge, unlockSecret: "482913"), for: challenge))

            // Listing and deleting: the local key goes too.
            #expect(try await sameServer.listAuthenticators().map(\.id) == ["atr_1"])
            try await sameServer.deleteAuthenticator(id: "atr_1")
            #expect(standIn.deleted == ["atr_1"])
            #expect(try sameServer.authenticatorKeyStore.publicKey(for: .pin) == nil)
            #expect(throws: FidoErrorCode.noSuitableAuthenticator) { try client.signWithAuthenticator(.pin, data: challenge, unlockSecret: "482913") }
        }
    }

    @Test("the selector sees only what the policy allows; a refused choice, no choice and a missing enroller each fail before sending")
    func selection() async throws {
        let policy = ClientPolicy(allowedAuthenticators: [.fingerprint, .pin], allowDevicePasscodeFallback: false)
        try await withServerStandIn(policy: policy) { standIn, url in
            let client = try Self.enrolledClient(url)
            let base = { client.registration().username("alice").pinEnroller(ScriptedEnroller(["482913"])) }

            let offPolicy = RecordingSelector(.password)
            await #expect(throws: OperationError.authenticatorNotAllowed(.password)) {
                try await base().authenticatorSelector(offPolicy).passwordEnroller(ScriptedEnroller(["longenough1"])).execute()
            }
            #expect(offPolicy.contexts.map(\.authenticators) == [[.fingerprint, .pin]])
            #expect(offPolicy.contexts.first?.username == "alice")

            await #expect(throws: OperationError.userCanceled) { try await base().authenticatorSelector(RecordingSelector(nil)).execute() }
            await #expect(throws: OperationError.missingParameter(.biometricUserVerifier)) {
                try await base().authenticatorSelector(RecordingSelector(.fingerprint)).execute()
            }
            let noFallback = MockBiometricUserVerifier()
            do {
                try await base().authenticatorSelector(RecordingSelector(.fingerprint)).biometricUserVerifier(noFallback)
                    .allowDevicePasscodeAsFallback(true).execute()
                Issue.record("fallback accepted against the policy")
            } catch let error as OperationError {
                #expect(error.code == .passcodeFallbackNotAllowed)
            }
            #expect(noFallback.verifications.isEmpty)
            let cancelled = MockBiometricUserVerifier()
            cancelled.failure = LocalAuthError(.userCancel)
            await #expect(throws: OperationError.userCanceled) {
                try await base().authenticatorSelector(RecordingSelector(.fingerprint)).biometricUserVerifier(cancelled).execute()
            }
            #expect(standIn.registrations.isEmpty)
            #expect(try client.authenticatorKeyStore.publicKey(for: .fingerprint) == nil)
        }
    }

    // MARK: Biometric invalidation

    @Test("biometric key with invalidateOnNewOsBiometrics: signs with the same domain state, then disappears for good once it changes; without it, still signs")
    func biometricInvalidation() async throws {
        try await withServerStandIn { standIn, url in
            let client = try Self.enrolledClient(url)
            let biometrics = MockBiometricUserVerifier()
            let data = Data("challenge".utf8)

            let info = try await client.registration().username("alice").authenticatorSelector(RecordingSelector(.fingerprint))
                .biometricUserVerifier(biometrics).execute()
            #expect(info.invalidateOnNewOsBiometrics)
            #expect(biometrics.verifications.count == 1)
            #expect(standIn.registrations.last?.request.invalidateOnNewOsBiometrics == true)
            let key = try P256.Signing.PublicKey(x963Representation: try #require(Data(base64Encoded: info.publicKey)))
            let signature = try client.signWithAuthenticator(.fingerprint, data: data, currentBiometricDomainState: biometrics.domainState)
            #expect(key.isValidSignature(signature, for: data))

            biometrics.enrollNewBiometrics()
            #expect(throws: FidoErrorCode.keyDisappearedPermanently) {
                try client.signWithAuthenticator(.fingerprint, data: data, currentBiometricDomainState: biometrics.domainState)
            }
            #expect(try client.authenticatorKeyStore.publicKey(for: .fingerprint) == nil)
            #expect(throws: FidoErrorCode.keyDisappearedPermanently) {
                try client.signWithAuthenticator(.fingerprint, data: data, currentBiometricDomainState: biometrics.domainState)
            }

            let lenient = try await client.registration().username("alice").authenticatorSelector(RecordingSelector(.faceRecognition))
                .biometricUserVerifier(biometrics).invalidateOnNewOsBiometrics(false).execute()
            #expect(standIn.registrations.last?.request.invalidateOnNewOsBiometrics == false)
            let faceKey = try P256.Signing.PublicKey(x963Representation: try #require(Data(base64Encoded: lenient.publicKey)))
            biometrics.enrollNewBiometrics()
            #expect(faceKey.isValidSignature(
                try client.signWithAuthenticator(.faceRecognition, data: data, currentBiometricDomainState: biometrics.domainState), for: data
            ))
        }
    }

    @Test("key stores (memory and file): bound biometric keys vanish on a new domain state and stay gone; PIN keys need the PIN; files are 0600", arguments: ["memory", "file"])
    func keyStores(kind: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-atr-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any AuthenticatorKeyStore = kind == "file" ? FileAuthenticatorKeyStore(directory: directory) : MemoryAuthenticatorKeyStore()
        let biometrics = MockBiometricUserVerifier()
        let data = Data("data".utf8)

        let bound = try store.generate(for: .fingerprint, unlockSecret: nil, biometricDomainState: biometrics.domainState)
        #expect(bound.isValidSignature(try store.sign(.fingerprint, data: data, unlockSecret: nil, currentBiometricDomainState: biometrics.domainState), for: data))
        biometrics.enrollNewBiometrics()
        #expect(throws: FidoErrorCode.keyDisappearedPermanently) {
            try store.sign(.fingerprint, data: data, unlockSecret: nil, currentBiometricDomainState: biometrics.domainState)
        }
        #expect(throws: FidoErrorCode.keyDisappearedPermanently) {
            try store.sign(.fingerprint, data: data, unlockSecret: nil, currentBiometricDomainState: biometrics.domainState)
        }
        #expect(try store.publicKey(for: .fingerprint) == nil)

        let unbound = try store.generate(for: .faceRecognition, unlockSecret: nil, biometricDomainState: nil)
        biometrics.enrollNewBiometrics()
        #expect(unbound.isValidSignature(try store.sign(.faceRecognition, data: data, unlockSecret: nil, currentBiometricDomainState: biometrics.domainState), for: data))

        let pin = try store.generate(for: .pin, unlockSecret: "482913", biometricDomainState: nil)
        #expect(pin.isValidSignature(try store.sign(.pin, data: data, unlockSecret: "482913", currentBiometricDomainState: nil), for: data))
        #expect(throws: FidoErrorCode.authenticatorAccessDenied) { try store.sign(.pin, data: data, unlockSecret: "000000", currentBiometricDomainState: nil) }
        try store.delete(.pin)
        #expect(throws: FidoErrorCode.noSuitableAuthenticator) { try store.sign(.pin, data: data, unlockSecret: "482913", currentBiometricDomainState: nil) }

        if kind == "file" {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(name)")
            }
            _ = try store.generate(for: .password, unlockSecret: "longenough1", biometricDomainState: nil)
            let file = try String(contentsOf: directory.appendingPathComponent("password.json"), encoding: .utf8)
            #expect(file.contains("sealedPrivateKey"))
            #expect(!file.contains("\"privateKey\""))
        }
    }
}
