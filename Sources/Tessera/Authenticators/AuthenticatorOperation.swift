import Foundation
import Synchronization
import TesseraCore

/// What ``Registration`` and ``Authentication`` share (the seed's `NMAHttpOperation` and the parts its
/// `NMARegistration` and `NMAAuthentication` both take): the user, the authenticator selector, the
/// biometric and device passcode verifiers, the request headers and HTTP handler, the callbacks, and the
/// two ways to run, ``execute()-(()->Void)`` with the callbacks and
/// ``execute()-(()async throws(OperationError)->Success)`` with `async`/`await`.
///
/// Each builder method stores its part and returns the operation, so that the calls chain. The builder is
/// safe to use from several threads; each run takes a snapshot of its parts.
public protocol AuthenticatorOperation: HTTPOperation {
    /// What the operation gives when it succeeds: the registered ``AuthenticatorInfo`` for a
    /// ``Registration``, the ``AuthenticationResult`` for an ``Authentication``.
    associatedtype Success: Sendable

    /// The parts given so far, which the builder methods set and `execute()` runs with. Only the SDK
    /// reads them (``OperationParts`` has no public members).
    var parts: OperationParts<Success> { get }
}

/// The parts an ``AuthenticatorOperation`` has been given so far and how it runs them: what its builder
/// methods set. An app neither reads nor creates one.
public final class OperationParts<Success: Sendable>: Sendable {
    /// Every part a ``Registration`` or an ``Authentication`` takes; each sets only those its builder
    /// methods name.
    struct Values {
        var username: String?
        var selector: (any AuthenticatorSelector)?
        var biometric: (any BiometricUserVerifier)?
        var passcode: (any DevicePasscodeUserVerifier)?
        var requestHeaders: [String: String] = [:]
        var httpHandler: (any OperationHTTPHandler)?
        var onSuccess: (@Sendable (Success) -> Void)?
        var onError: (@Sendable (OperationError) -> Void)?
        // A registration's own.
        var serverUrl: URL?
        var authorizationProvider: (any AuthorizationProvider)?
        var deviceInformation: DeviceInformation?
        var pinEnroller: (any PinEnroller)?
        var passwordEnroller: (any PasswordEnroller)?
        var allowDevicePasscodeAsFallback = false
        var invalidateOnNewOsBiometrics = true
        // An authentication's own.
        var pinVerifier: (any PinUserVerifier)?
        var passwordVerifier: (any PasswordUserVerifier)?

        /// Whether any verifier or enroller was given (which ones the chosen authenticator needs is
        /// known only once the selector has chosen).
        var hasUserVerification: Bool {
            biometric != nil || passcode != nil || pinEnroller != nil || passwordEnroller != nil || pinVerifier != nil || passwordVerifier != nil
        }
    }

    /// The operation's body: runs it with a snapshot of its parts, already checked.
    typealias Perform = @Sendable (_ client: TesseraClient, _ parts: Values) async throws -> Success

    private let client: TesseraClient
    /// `registration` or `authentication`, for the log.
    private let name: String
    /// The part reported missing when no verifier or enroller was given.
    private let userVerification: OperationError.Parameter
    private let perform: Perform
    private let values = Mutex(Values())

    init(client: TesseraClient, name: String, userVerification: OperationError.Parameter, perform: @escaping Perform) {
        self.client = client
        self.name = name
        self.userVerification = userVerification
        self.perform = perform
    }

    func set(_ change: (inout Values) -> Void) { values.withLock { change(&$0) } }

    var snapshot: Values { values.withLock { $0 } }

    /// Checks the required parts, in the order username, selector, verifier or enroller, then (with
    /// `requiringCallbacks`) onSuccess and onError.
    func validate(_ parts: Values, requiringCallbacks: Bool) throws(OperationError) {
        guard let username = parts.username, !username.isEmpty else { throw .missingParameter(.username) }
        guard parts.selector != nil else { throw .missingParameter(.authenticatorSelector) }
        guard parts.hasUserVerification else { throw .missingParameter(userVerification) }
        if requiringCallbacks {
            guard parts.onSuccess != nil else { throw .missingParameter(.onSuccess) }
            guard parts.onError != nil else { throw .missingParameter(.onError) }
        }
    }

    /// The callback form: checks the parts, then runs in a background task and reports the outcome to
    /// exactly one of `onSuccess` and `onError`. A missing part goes to `onError`, or to the client's log
    /// when `onError` itself is missing (nothing else can be called then).
    func execute() {
        let parts = snapshot
        do throws(OperationError) {
            try validate(parts, requiringCallbacks: true)
        } catch {
            client.log?("✗ \(name): \(error.description)")
            if let onError = parts.onError { Task { onError(error) } }
            return
        }
        guard let onSuccess = parts.onSuccess, let onError = parts.onError else { return }
        Task {
            do throws(OperationError) {
                onSuccess(try await run(parts))
            } catch {
                onError(error)
            }
        }
    }

    /// Runs the operation with `parts`; any error becomes an ``OperationError``, logged as its failure.
    func run(_ parts: Values) async throws(OperationError) -> Success {
        do {
            try validate(parts, requiringCallbacks: false)
            return try await perform(client, parts)
        } catch {
            let failure = OperationError(error)
            client.log?("✗ \(name): \(failure.description)")
            throw failure
        }
    }
}

extension AuthenticatorOperation {
    func setting(_ change: (inout OperationParts<Success>.Values) -> Void) -> Self {
        parts.set(change)
        return self
    }

    /// The user (required): the user key of the device's user. The server refuses any other user's
    /// (``OperationError/server(_:)`` with ``ErrorCode/authenticatorUsernameMismatch``, 7208): an
    /// authenticator belongs to the user the device holds.
    @discardableResult
    public func username(_ username: String) -> Self { setting { $0.username = username } }

    /// Chooses the authenticator (required): to register, among those the client's policy allows; to
    /// authenticate with, among those registered for this device.
    @discardableResult
    public func authenticatorSelector(_ authenticatorSelector: any AuthenticatorSelector) -> Self {
        setting { $0.selector = authenticatorSelector }
    }

    /// Verifies the user for a fingerprint or face authenticator.
    @discardableResult
    public func biometricUserVerifier(_ biometricUserVerifier: any BiometricUserVerifier) -> Self {
        setting { $0.biometric = biometricUserVerifier }
    }

    /// Verifies the user for a device passcode authenticator.
    @discardableResult
    public func devicePasscodeUserVerifier(_ devicePasscodeUserVerifier: any DevicePasscodeUserVerifier) -> Self {
        setting { $0.passcode = devicePasscodeUserVerifier }
    }

    /// Headers added to every request of the operation (``HTTPOperation``; the seed's `NMAHttpOperation`).
    @discardableResult
    public func requestHeaders(_ requestHeaders: [String: String]) -> Self { setting { $0.requestHeaders = requestHeaders } }

    /// The handler every request of the operation goes through (``HTTPOperation``).
    @discardableResult
    public func httpHandler(_ httpHandler: any OperationHTTPHandler) -> Self { setting { $0.httpHandler = httpHandler } }

    /// Runs when the operation succeeded (the seed's form without argument; this or the form with the
    /// result is required by the callback ``execute()-(()->Void)``).
    @discardableResult
    public func onSuccess(_ onSuccess: @escaping @Sendable () -> Void) -> Self { setting { $0.onSuccess = { _ in onSuccess() } } }

    /// Runs with what the operation gives when it succeeded (the registered authenticator, or the result
    /// token of the authentication).
    @discardableResult
    public func onSuccess(_ onSuccess: @escaping @Sendable (Success) -> Void) -> Self { setting { $0.onSuccess = onSuccess } }

    /// Runs with the error when the operation failed (required by the callback ``execute()-(()->Void)``).
    @discardableResult
    public func onError(_ onError: @escaping @Sendable (OperationError) -> Void) -> Self { setting { $0.onError = onError } }

    /// Checks the required parts, in the order username, selector, verifier or enroller, then (with
    /// `requiringCallbacks`) onSuccess and onError.
    /// - Throws: ``OperationError/missingParameter(_:)`` naming the first missing part.
    public func validate(requiringCallbacks: Bool = false) throws(OperationError) {
        try parts.validate(parts.snapshot, requiringCallbacks: requiringCallbacks)
    }

    /// Runs the operation and reports the outcome to ``onSuccess(_:)-(()->Void)`` or ``onError(_:)``,
    /// exactly once, from a background task. Returns at once.
    ///
    /// A missing part is reported to `onError`; when `onError` itself is missing nothing can be called,
    /// and the error goes to the client's log (`onTotalLog`).
    public func execute() { parts.execute() }

    /// Runs the operation and returns what it gives; ``onSuccess(_:)-(()->Void)`` and ``onError(_:)`` are
    /// neither needed nor called.
    /// - Throws: ``OperationError``: a missing part before any network call, then what the operation's own
    ///   `execute()` lists (``Registration``, ``Authentication``).
    @discardableResult
    public func execute() async throws(OperationError) -> Success {
        try await parts.run(parts.snapshot)
    }
}

extension TesseraClient {
    /// Lets `selector` choose among `candidates` (each type once, in order) and refuses a choice outside
    /// them with `refusal`.
    /// - Throws: ``OperationError/userCanceled`` when the selector chooses nothing; `refusal(type)`.
    func selectAuthenticator(
        among candidates: [AuthenticatorType], username: String, policy: ClientPolicy, selector: any AuthenticatorSelector,
        for operation: String, refusal: (AuthenticatorType) -> OperationError
    ) async throws -> AuthenticatorType {
        var offered: [AuthenticatorType] = []
        for type in candidates where !offered.contains(type) { offered.append(type) }
        let selection = AuthenticatorSelectionContext(username: username, authenticators: offered, policy: policy)
        guard let type = try await selector.selectAuthenticator(context: selection) else { throw OperationError.userCanceled }
        guard offered.contains(type) else { throw refusal(type) }
        log?("  \(operation): \(type.rawValue) selected")
        return type
    }
}
