import Foundation
import Testing
import Tessera
import TesseraTesting
import TesseraCore
@testable import TesseraServer

/// The Nevis seed (`NMARegistration`) as its own example code writes it, against a live server: the
/// five implementations of the seed's protocols, then `client.operations.registration` set up call by
/// call in the seed's order and run with `execute`, then the authentication operation the seed
/// implies. Adapted only where Tessera.docc/MigratingFromNevis.md says so: no `NMA` prefix, handlers
/// become return values (`[handler aaid:aaid]` returns the type, `[handler verify]` returns,
/// `[handler pin:pin]` returns the PIN), and the callbacks are `@Sendable`.
@Suite("Seed: Nevis registration and authentication")
struct NevisSeedTests {
    static let bundle = "com.example.nevis-seed"
    static let username = "nevis-user"
    static let pin = "482913"

    // MARK: The seed's protocol implementations

    /// `NMAAuthenticatorSelectorImpl`: `[handler aaid:aaid]`.
    struct AuthenticatorSelectorImpl: AuthenticatorSelector {
        let aaid: String
        func selectAuthenticator(context: AuthenticatorSelectionContext) async throws -> AuthenticatorType? {
            AuthenticatorType(aaid: aaid)
        }
    }

    /// `NMABiometricUserVerifierImpl`: `[handler verify]` (the OS prompt is the mock on Linux).
    struct BiometricUserVerifierImpl: BiometricUserVerifier {
        let os = MockBiometricUserVerifier()
        func verifyBiometric(context: BiometricUserVerificationContext) async throws { try await os.verifyBiometric(context: context) }
        var domainState: Data? { os.domainState }
    }

    /// `NMADevicePasscodeUserVerifierImpl`: `[handler verify]`.
    struct DevicePasscodeUserVerifierImpl: DevicePasscodeUserVerifier {
        func verifyDevicePasscode(context: DevicePasscodeUserVerificationContext) async throws {}
    }

    /// `NMAPinEnrollerImpl`: `[handler pin:pin]`.
    struct PinEnrollerImpl: PinEnroller {
        func enrollPin(context: PinEnrollmentContext) async throws -> String { NevisSeedTests.pin }
    }

    /// `NMAPasswordEnrollerImpl`: `[handler password:password]`.
    struct PasswordEnrollerImpl: PasswordEnroller {
        func enrollPassword(context: PasswordEnrollmentContext) async throws -> String { "a long password 1" }
    }

    /// The PIN the user types when authenticating (the authentication operation's `pinUserVerifier`).
    struct PinUserVerifierImpl: PinUserVerifier {
        func verifyPin(context: PinUserVerificationContext) async throws -> String { NevisSeedTests.pin }
    }

    /// What `onSuccess` or `onError` reported.
    enum Outcome: Sendable {
        case success
        case authenticated(AuthenticationResult)
        case error(OperationError)
    }

    /// The seed's registration example, line by line, in a synchronous function as the seed's code is
    /// (in an `async` context Swift picks the `async` `execute()`).
    static func register(
        client: TesseraClient, username: String, serverURL: URL, authorizationProvider: any AuthorizationProvider, aaid: String,
        report: @escaping @Sendable (Outcome) -> Void
    ) {
        let registration = client.operations.registration

        registration.username(username)
        registration.serverUrl(serverURL)
        registration.authorizationProvider(authorizationProvider)
        registration.deviceInformation(DeviceInformation(name: "<Device name>", fcmRegistrationToken: "<FCM token>"))
        registration.authenticatorSelector(AuthenticatorSelectorImpl(aaid: aaid))
        registration.biometricUserVerifier(BiometricUserVerifierImpl())
        registration.devicePasscodeUserVerifier(DevicePasscodeUserVerifierImpl())
        registration.pinEnroller(PinEnrollerImpl())
        registration.passwordEnroller(PasswordEnrollerImpl())
        registration.onSuccess { report(.success) }
        registration.onError { error in report(.error(error)) }
        registration.execute()
    }

    /// The authentication operation the seed implies, in the same style.
    static func authenticate(client: TesseraClient, username: String, aaid: String, report: @escaping @Sendable (Outcome) -> Void) {
        let authentication = client.operations.authentication

        authentication.username(username)
        authentication.authenticatorSelector(AuthenticatorSelectorImpl(aaid: aaid))
        authentication.pinUserVerifier(PinUserVerifierImpl())
        authentication.biometricUserVerifier(BiometricUserVerifierImpl())
        authentication.devicePasscodeUserVerifier(DevicePasscodeUserVerifierImpl())
        authentication.onSuccess { result in report(.authenticated(result)) }
        authentication.onError { error in report(.error(error)) }
        authentication.execute()
    }

    @Test("the seed's registration example, then an authentication with the registered PIN authenticator")
    func seedExample() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, tesseraClient, url in
            let client = try await LiveServer.enrol(runtime, tesseraClient, url, userKey: Self.username, bundleId: Self.bundle)
            let aaid = AuthenticatorType.pin.aaid
            let (outcomes, continuation) = AsyncStream<Outcome>.makeStream()
            var results = outcomes.makeAsyncIterator()
            let report: @Sendable (Outcome) -> Void = { continuation.yield($0) }

            // The seed's "https://server/path": only its scheme, host and port are used.
            Self.register(
                client: client, username: Self.username, serverURL: url.appendingPathComponent("path"),
                authorizationProvider: StaticAuthorizationProvider.bearer("app-backend-token"), aaid: aaid, report: report
            )
            let registeredOutcome = try #require(await results.next())
            guard case .success = registeredOutcome else { Issue.record("the registration failed: \(registeredOutcome)"); return }
            let registered = try await client.listAuthenticators()
            #expect(registered.map(\.aaid) == [aaid])
            #expect(try await runtime.userAuthenticators(clientKey: tesseraClient.clientKey, userKey: Self.username).authenticators.count == 1)

            Self.authenticate(client: client, username: Self.username, aaid: aaid, report: report)
            let authenticatedOutcome = try #require(await results.next())
            guard case .authenticated(let result) = authenticatedOutcome else {
                Issue.record("the authentication failed: \(authenticatedOutcome)")
                return
            }
            #expect(result.authenticatorId == registered.first?.id)
            let claims = try await runtime.tokens.verify(result.token)
            #expect(claims.amr == ["pin", "swk"] && claims.sub.value == Self.username)

            // The seed's username rule: another user's name is refused, through onError.
            Self.register(
                client: client, username: "somebody-else", serverURL: url, authorizationProvider: StaticAuthorizationProvider.bearer("t"),
                aaid: AuthenticatorType.password.aaid, report: report
            )
            let otherOutcome = try #require(await results.next())
            guard case .error(let error) = otherOutcome else { Issue.record("another user's registration was accepted"); return }
            #expect(error.code == .authenticatorUsernameMismatch, "\(error)")
        }
    }
}
