import Foundation
import Synchronization
import Testing
import Tessera
import TesseraCore

/// What ``Registration`` and ``Authentication`` share through ``AuthenticatorOperation``: the required
/// parts, checked in the same order before any network call, each operation naming its own missing
/// verifier; the callback form reporting a missing part to `onError`. No server: the transport refuses
/// every request, and nothing here reaches it.
@Suite("Authenticator operations")
struct AuthenticatorOperationTests {
    struct Pin: PinUserVerifier, PinEnroller {
        func verifyPin(context: PinUserVerificationContext) async throws -> String { "4711" }
        func enrollPin(context: PinEnrollmentContext) async throws -> String { "4711" }
    }

    static func client() -> TesseraClient {
        TesseraClient(
            configuration: .init(serverURL: URL(string: "https://id.example.com")!, clientKey: "tck_ops", bundleIdentifier: "com.example.app"),
            keyStore: MemoryKeyStore(), transport: OfflineTransport()
        )
    }

    /// Gives `operation` its parts one at a time and records what `validate` reports missing before each.
    static func missing<Operation: AuthenticatorOperation>(
        _ operation: Operation, verifier: @escaping (Operation) -> Void
    ) -> [OperationError] {
        var seen: [OperationError] = []
        let steps: [(Operation) -> Void] = [
            { $0.username("alice") }, { $0.authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin)) }, verifier,
            { $0.onSuccess { _ in } }, { $0.onError { _ in } },
        ]
        for step in steps {
            do throws(OperationError) {
                try operation.validate(requiringCallbacks: true)
            } catch {
                seen.append(error)
            }
            step(operation)
        }
        #expect(throws: Never.self) { try operation.validate(requiringCallbacks: true) }
        return seen
    }

    @Test("the same order for both; a registration misses a verifier or enroller, an authentication a verifier")
    func order() {
        let registration = Self.missing(Self.client().registration()) { $0.pinEnroller(Pin()) }
        let authentication = Self.missing(Self.client().operations.authentication) { $0.pinUserVerifier(Pin()) }
        #expect(registration == [.username, .authenticatorSelector, .userVerifierOrEnroller, .onSuccess, .onError].map(OperationError.missingParameter))
        #expect(authentication == [.username, .authenticatorSelector, .userVerifier, .onSuccess, .onError].map(OperationError.missingParameter))
    }

    @Test("each builder method returns the operation itself, so the calls chain on the seed's types")
    func chaining() {
        let registration = Self.client().registration()
        let chained: Registration = registration.username("alice").serverUrl(URL(string: "https://other.example.com")!).requestHeaders(["X-A": "1"])
        #expect(chained === registration)
        let authentication = Self.client().operations.authentication
        let same: Authentication = authentication.requestHeaders([:]).pinUserVerifier(Pin()).username("alice")
        #expect(same === authentication)
    }

    @Test("async: a device that has not signed up fails before any request, with the part checks first")
    func notRegistered() async {
        let registration = Self.client().registration()
        await #expect(throws: OperationError.missingParameter(.username)) { try await registration.execute() }
        registration.username("alice").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin)).pinEnroller(Pin())
        await #expect(throws: OperationError.deviceNotRegistered) { try await registration.execute() }

        let authentication = Self.client().operations.authentication
            .username("alice").authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin)).pinUserVerifier(Pin())
        await #expect(throws: OperationError.deviceNotRegistered) { try await authentication.execute() }
    }

    @Test("callbacks: a missing part goes to onError, exactly once, and onSuccess is not called")
    func callbackMissingPart() async {
        let outcomes = Mutex<[String]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Self.client().operations.authentication
                .authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
                .pinUserVerifier(Pin())
                .onSuccess { outcomes.withLock { $0.append("success") } }
                .onError { error in
                    outcomes.withLock { $0.append("\(error)") }
                    done.resume()
                }
                .execute()
        }
        #expect(outcomes.withLock { $0 } == ["\(OperationError.missingParameter(.username))"])
    }
}

/// The seed's data types read and write the fields they share as their own.
@Suite("Sign-up and re-registration data")
struct EnrolmentDataTests {
    @Test("UserData and ExistingUserData: the shared fields as their own, in the one EnrolmentData both hold")
    func sharedFields() {
        var userData = UserData(
            appVersion: "1", token: "", email: "a@example.com", phoneNumber: "+41790000001", userKey: "alice", name: "Alice",
            authType: .pin, os: .iOS, disposeToken: "tdt_1", agreeGccs: true, agreePerson: true, agreeDevice: true
        )
        userData.email = "b@example.com"
        userData.authType = .biometric
        #expect(userData.enrolment.email == "b@example.com" && userData[keyPath: \.authType] == .biometric && userData.agreeGccs)

        var existing: ExistingUserData? = ExistingUserData(userKey: "alice", disposeToken: "tdt_2", appVersion: "2", token: "t", authType: .pin, os: .linux)
        existing?.authType = .password
        existing?.disposeToken = "tdt_3"
        #expect(existing?.enrolment == EnrolmentData(
            appVersion: "2", token: "t", email: "", phoneNumber: "", userKey: "alice", name: "", authType: .password, os: .linux, disposeToken: "tdt_3"
        ))
        #expect(existing?.otpType == nil && existing?.appPackage == nil)
    }
}
