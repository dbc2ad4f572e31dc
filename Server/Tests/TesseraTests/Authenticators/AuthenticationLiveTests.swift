import Foundation
import Synchronization
import Testing
import TesseraTestSupport
import Tessera
import TesseraTesting
import TesseraCore
@testable import TesseraServer

/// The Nevis seed's username and authentication operation through the SDK against a live server:
/// the username is sent and checked, a registered authenticator logs in and shows in the token's
/// `amr`, an invalidated biometric key fails with `keyDisappearedPermanently` before the server is
/// asked anything, and the app can customise the operation's HTTP (the seed's `NMAHttpOperation`).
@Suite("SDK: authenticator username and authentication against a live server")
struct AuthenticationLiveTests {
    static let bundle = "com.example.nevis-auth"

    /// A PIN verifier answering from a script, one answer per ask.
    final class ScriptedPinVerifier: PinUserVerifier, Sendable {
        private let state: Mutex<(answers: [String], contexts: [PinUserVerificationContext])>
        init(_ answers: [String]) { state = Mutex((answers, [])) }
        var contexts: [PinUserVerificationContext] { state.withLock { $0.contexts } }
        func verifyPin(context: PinUserVerificationContext) async throws -> String {
            try state.withLock { state in
                state.contexts.append(context)
                guard !state.answers.isEmpty else { throw CancellationError() }
                return state.answers.removeFirst()
            }
        }
    }

    /// An HTTP handler that records each request's method and path and passes it on.
    final class RecordingHandler: OperationHTTPHandler, Sendable {
        private let seen = Mutex<[OperationHTTPRequest]>([])
        var requests: [OperationHTTPRequest] { seen.withLock { $0 } }
        var paths: [String] { requests.map { "\($0.method) \($0.url.path)" } }
        func send(
            _ request: OperationHTTPRequest, next: @Sendable (OperationHTTPRequest) async throws -> OperationHTTPResponse
        ) async throws -> OperationHTTPResponse {
            seen.withLock { $0.append(request) }
            return try await next(request)
        }
    }

    /// The callback form of `execute` (an async context picks the async one).
    static func executeWithCallbacks(_ authentication: Authentication) { authentication.execute() }

    /// The claims of a JWT, decoded without verification (the server verifies; the python peer checks the JWKS).
    static func claims(_ token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { throw ConfigurationError("not a JWT") }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ConfigurationError("unreadable JWT payload")
        }
        return object
    }

    @Test("a registration for another user is refused with 7208 through onError, and nothing is registered")
    func usernameMismatch() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "anna", bundleId: Self.bundle)
            _ = try await LiveServer.enrol(runtime, client, url, userKey: "boris", bundleId: Self.bundle)
            let outcome = AsyncStream<OperationError?>.makeStream()
            RegistrationBuilderTests.executeWithCallbacks(
                tessera.operations.registration
                    .username("boris")
                    .authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                    .pinEnroller(RegistrationBuilderTests.ScriptedEnroller(["482913"]))
                    .onSuccess { outcome.continuation.yield(nil) }
                    .onError { outcome.continuation.yield($0) }
            )
            var iterator = outcome.stream.makeAsyncIterator()
            let error = try #require(await iterator.next() ?? nil)
            #expect(error.kind == .server && error.code == .authenticatorUsernameMismatch, "\(error)")
            #expect(try await tessera.listAuthenticators().isEmpty)
            #expect(try await runtime.userAuthenticators(clientKey: client.clientKey, userKey: "boris").authenticators.isEmpty)
            // The local key made for the refused registration is gone too.
            #expect(try tessera.authenticatorKeyStore.publicKey(for: .pin) == nil)
        }
    }

    @Test("a PIN authenticator logs in (amr pin); a wrong PIN is asked again; the token verifies with the JWKS")
    func pinLogin() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "carla", bundleId: Self.bundle)
            let pin = try await tessera.registration().username("carla").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                .pinEnroller(RegistrationBuilderTests.ScriptedEnroller(["482913"])).execute()
            let verifier = ScriptedPinVerifier(["000000", "482913"])
            let result = try await tessera.operations.authentication
                .username("carla")
                .authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                .pinUserVerifier(verifier)
                .execute()
            #expect(result.authenticator == .pin && result.authenticatorId == pin.id)
            #expect(verifier.contexts.map(\.lastRecoverableError?.remainingAttempts) == [nil, 2])
            let claims = try Self.claims(result.token)
            #expect(claims["amr"] as? [String] == ["pin", "swk"])
            #expect(claims["sub"] as? String == "carla")
            #expect(try await runtime.tokens.verify(result.token).amr == ["pin", "swk"])

            do {
                let python = try TestRequirements.python(importing: ["jwt", "cryptography"], for: "checking the result token with PyJWT")
                let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/jwt_verify.py").path
                let checked = try await DeviceCLITests.run(URL(fileURLWithPath: python), [
                    fixture, url.absoluteString + "/.well-known/jwks.json", client.clientKey, runtime.tokens.issuer, result.token,
                ])
                #expect(checked.status == 0, "\(checked.output)")
                #expect(checked.output.contains("\"pin\"") && checked.output.contains("\"sub\": \"carla\""), "\(checked.output)")
            }

            // Three wrong PINs: refused on the device, nothing sent to the authentication endpoints.
            let recorder = RecordingHandler()
            await #expect(throws: OperationError.fido(.authenticatorAccessDenied)) {
                try await tessera.operations.authentication.username("carla").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                    .pinUserVerifier(ScriptedPinVerifier(["000000", "111111", "222222"])).httpHandler(recorder).execute()
            }
            #expect(!recorder.paths.contains { $0.contains("/authenticator-challenges") || $0.contains("/authenticator-logins") }, "\(recorder.paths)")
            // Another user's name is refused by the server.
            do {
                _ = try await tessera.operations.authentication.username("someone-else").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                    .pinUserVerifier(ScriptedPinVerifier(["482913"])).execute()
                Issue.record("another user's name was accepted")
            } catch {
                #expect((error as? OperationError)?.code == .authenticatorUsernameMismatch, "\(error)")
            }
        }
    }

    @Test("after new OS biometrics the fingerprint authenticator fails with keyDisappearedPermanently and the server is not asked")
    func biometricChange() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "dora", bundleId: Self.bundle)
            let biometrics = MockBiometricUserVerifier()
            _ = try await tessera.registration().username("dora").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.fingerprint))
                .biometricUserVerifier(biometrics).invalidateOnNewOsBiometrics(true).execute()
            let login = {
                tessera.operations.authentication.username("dora").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.fingerprint))
                    .biometricUserVerifier(biometrics)
            }
            let before = try await login().execute()
            #expect(try Self.claims(before.token)["amr"] as? [String] == ["fpt", "swk"])

            biometrics.enrollNewBiometrics()
            let recorder = RecordingHandler()
            let outcome = AsyncStream<OperationError?>.makeStream()
            Self.executeWithCallbacks(
                login().httpHandler(recorder).onSuccess { outcome.continuation.yield(nil) }.onError { outcome.continuation.yield($0) }
            )
            var iterator = outcome.stream.makeAsyncIterator()
            let error = try #require(await iterator.next() ?? nil)
            #expect(error == .fido(.keyDisappearedPermanently), "\(error)")
            #expect(recorder.paths.allSatisfy { $0.hasPrefix("GET ") }, "only the listing and the policy were fetched: \(recorder.paths)")
            // And for good: the next try fails the same way.
            await #expect(throws: OperationError.fido(.keyDisappearedPermanently)) { try await login().execute() }
        }
    }

    @Test("the operation's HTTP seam: headers added (never over the SDK's), each request seen, an answer made by the app")
    func httpSeam() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "emil", bundleId: Self.bundle)
            let recorder = RecordingHandler()
            _ = try await tessera.operations.registration.username("emil").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                .pinEnroller(RegistrationBuilderTests.ScriptedEnroller(["482913"]))
                .requestHeaders(["X-App-Trace": "t-1", "Signature": "forged"]).httpHandler(recorder).execute()
            #expect(recorder.paths.contains("POST /v1/devices/authenticators"), "\(recorder.paths)")
            #expect(recorder.requests.allSatisfy { $0.headers["X-App-Trace"] == "t-1" })
            let signed = recorder.requests.filter { $0.headers["Signature-Input"] != nil }
            #expect(!signed.isEmpty && signed.allSatisfy { $0.headers["Signature"] != "forged" }, "the SDK's own headers win")

            let result = try await tessera.operations.authentication.username("emil").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                .pinUserVerifier(ScriptedPinVerifier(["482913"])).requestHeaders(["X-App-Trace": "t-2"]).httpHandler(recorder).execute()
            #expect(try Self.claims(result.token)["amr"] as? [String] == ["pin", "swk"])
            #expect(recorder.paths.suffix(2) == ["POST /v1/devices/authenticator-challenges", "POST /v1/devices/authenticator-logins"])

            // An app that performs the request itself: its answer is the operation's.
            let refusing = ClosureOperationHTTPHandler { request, next in
                guard request.url.path.hasSuffix("/authenticator-challenges") else { return try await next(request) }
                let problem = #"{"type":"about:blank","code":7209,"status":401,"title":"made by the app"}"#
                return OperationHTTPResponse(status: 401, body: Data(problem.utf8))
            }
            await #expect(throws: OperationError.server(TesseraError(code: .authenticatorChallengeInvalid, message: "made by the app"))) {
                try await tessera.operations.authentication.username("emil").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                    .pinUserVerifier(ScriptedPinVerifier(["482913"])).httpHandler(refusing).execute()
            }
        }
    }
}
