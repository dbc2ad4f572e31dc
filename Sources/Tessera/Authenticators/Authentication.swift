import Crypto
import Foundation
import TesseraCore
import Synchronization

/// Logs the device's user in with one of its registered authenticators (the authentication operation
/// the Nevis seed implies, `client.operations.authentication`), built step by step and run with
/// ``execute()-(()->Void)`` (callbacks) or ``execute()-(()async throws(OperationError)->AuthenticationResult)``.
///
/// ```swift
/// tessera.operations.authentication
///     .username("alice")
///     .authenticatorSelector(mySelector)
///     .pinUserVerifier(myPinScreen)
///     .biometricUserVerifier(myBiometricPrompt)
///     .onSuccess { result in … }
///     .onError { error in … }
///     .execute()
/// ```
///
/// Required: ``username(_:)``, ``authenticatorSelector(_:)``, at least one of ``pinUserVerifier(_:)``,
/// ``passwordUserVerifier(_:)``, ``biometricUserVerifier(_:)`` and ``devicePasscodeUserVerifier(_:)``,
/// and for the callback form ``onSuccess(_:)-(()->Void)`` and ``onError(_:)``.
///
/// The run: list the device's registered authenticators (`GET /v1/devices/authenticators`), let the
/// selector choose one, verify the user with its verifier (PIN or password asked again when wrong, up
/// to ``maxVerificationAttempts`` answers; biometrics or device passcode by the OS), and have the
/// authenticator's key sign a local probe: nothing is asked of the server until the user is verified
/// and the key works, so an invalidated biometric key ends with ``FidoErrorCode/keyDisappearedPermanently``
/// at once. Then a single-use challenge (`POST /v1/devices/authenticator-challenges`) is signed by the
/// key and sent (`POST /v1/devices/authenticator-logins`), both signed by the device key; the
/// server checks the signature against the authenticator's registered public key and answers the result
/// token.
public final class Authentication: HTTPOperation, Sendable {
    /// How many answers a PIN or password verifier may give before the authentication fails.
    public static let maxVerificationAttempts = 3

    struct Parts {
        var username: String?
        var selector: (any AuthenticatorSelector)?
        var pin: (any PinUserVerifier)?
        var password: (any PasswordUserVerifier)?
        var biometric: (any BiometricUserVerifier)?
        var passcode: (any DevicePasscodeUserVerifier)?
        var requestHeaders: [String: String] = [:]
        var httpHandler: (any OperationHTTPHandler)?
        var onSuccess: (@Sendable (AuthenticationResult) -> Void)?
        var onError: (@Sendable (OperationError) -> Void)?
    }

    private let client: TesseraClient
    private let parts = Mutex(Parts())

    init(client: TesseraClient) { self.client = client }

    private func set(_ change: (inout Parts) -> Void) -> Authentication {
        parts.withLock { change(&$0) }
        return self
    }

    private var snapshot: Parts { parts.withLock { $0 } }

    // MARK: Builder

    /// The user who authenticates (required): the user key of the device's user; the server refuses
    /// another (7208).
    @discardableResult
    public func username(_ username: String) -> Authentication { set { $0.username = username } }

    /// Chooses the authenticator among the device's registered ones (required).
    @discardableResult
    public func authenticatorSelector(_ authenticatorSelector: any AuthenticatorSelector) -> Authentication {
        set { $0.selector = authenticatorSelector }
    }

    /// Asks for the PIN of a PIN authenticator.
    @discardableResult
    public func pinUserVerifier(_ pinUserVerifier: any PinUserVerifier) -> Authentication { set { $0.pin = pinUserVerifier } }

    /// Asks for the password of a password authenticator.
    @discardableResult
    public func passwordUserVerifier(_ passwordUserVerifier: any PasswordUserVerifier) -> Authentication {
        set { $0.password = passwordUserVerifier }
    }

    /// Verifies the user for a fingerprint or face authenticator.
    @discardableResult
    public func biometricUserVerifier(_ biometricUserVerifier: any BiometricUserVerifier) -> Authentication {
        set { $0.biometric = biometricUserVerifier }
    }

    /// Verifies the user for a device passcode authenticator.
    @discardableResult
    public func devicePasscodeUserVerifier(_ devicePasscodeUserVerifier: any DevicePasscodeUserVerifier) -> Authentication {
        set { $0.passcode = devicePasscodeUserVerifier }
    }

    /// Headers added to every request of the authentication (``HTTPOperation``).
    @discardableResult
    public func requestHeaders(_ requestHeaders: [String: String]) -> Authentication { set { $0.requestHeaders = requestHeaders } }

    /// The handler every request of the authentication goes through (``HTTPOperation``).
    @discardableResult
    public func httpHandler(_ httpHandler: any OperationHTTPHandler) -> Authentication { set { $0.httpHandler = httpHandler } }

    /// Runs when the authentication succeeded (the seed's form without argument).
    @discardableResult
    public func onSuccess(_ onSuccess: @escaping @Sendable () -> Void) -> Authentication { set { $0.onSuccess = { _ in onSuccess() } } }

    /// Runs with the result token when the authentication succeeded.
    @discardableResult
    public func onSuccess(_ onSuccess: @escaping @Sendable (AuthenticationResult) -> Void) -> Authentication { set { $0.onSuccess = onSuccess } }

    /// Runs with the error when the authentication failed.
    @discardableResult
    public func onError(_ onError: @escaping @Sendable (OperationError) -> Void) -> Authentication { set { $0.onError = onError } }

    // MARK: Running

    private static func validate(_ parts: Parts, requiringCallbacks: Bool) throws(OperationError) {
        guard let username = parts.username, !username.isEmpty else { throw .missingParameter(.username) }
        guard parts.selector != nil else { throw .missingParameter(.authenticatorSelector) }
        guard parts.pin != nil || parts.password != nil || parts.biometric != nil || parts.passcode != nil else {
            throw .missingParameter(.userVerifier)
        }
        if requiringCallbacks {
            guard parts.onSuccess != nil else { throw .missingParameter(.onSuccess) }
            guard parts.onError != nil else { throw .missingParameter(.onError) }
        }
    }

    /// Runs the authentication and reports the outcome to ``onSuccess(_:)-(()->Void)`` or ``onError(_:)``,
    /// exactly once, from a background task. Returns at once. A missing part is reported to `onError`
    /// (to the client's log when `onError` itself is missing).
    public func execute() {
        let parts = snapshot
        OperationRunner.execute(
            "authentication", client: client, onSuccess: parts.onSuccess, onError: parts.onError,
            validate: { () throws(OperationError) in try Self.validate(parts, requiringCallbacks: true) },
            body: { () async throws(OperationError) in try await self.run(parts) }
        )
    }

    /// Runs the authentication and returns the result token; the callbacks are neither needed nor called.
    /// - Throws: ``OperationError``: a missing part before any network call; ``OperationError/userCanceled``;
    ///   ``OperationError/fido(_:)`` (``FidoErrorCode/keyDisappearedPermanently`` for a biometric key
    ///   invalidated by new OS biometrics, ``FidoErrorCode/authenticatorAccessDenied`` after the last wrong
    ///   PIN or password, ``FidoErrorCode/noSuitableAuthenticator`` for a type not registered here);
    ///   ``OperationError/server(_:)`` with the server's code (7204, 7208–7210) or ``ErrorCode/networkError``.
    @discardableResult
    public func execute() async throws(OperationError) -> AuthenticationResult {
        try await run(snapshot)
    }

    private func run(_ parts: Parts) async throws(OperationError) -> AuthenticationResult {
        try await OperationRunner.run("authentication", client: client) { try await authenticate(parts) }
    }

    private func authenticate(_ parts: Parts) async throws -> AuthenticationResult {
        try Self.validate(parts, requiringCallbacks: false)
        guard let username = parts.username, let selector = parts.selector else { throw OperationError.missingParameter(.username) }
        guard let deviceId = try client.keyStore.loadState()?.deviceId else { throw OperationError.deviceNotRegistered }
        let target = client.operationClient(serverURL: nil, headers: parts.requestHeaders, handler: parts.httpHandler)
        let keys = try client.authenticatorKeyStore

        let registered = try await target.listAuthenticators()
        var offered: [AuthenticatorType] = []
        for info in registered where !offered.contains(info.type) { offered.append(info.type) }
        let policy = try await target.fetchPolicy()
        let selection = AuthenticatorSelectionContext(username: username, authenticators: offered, policy: policy)
        guard let type = try await selector.selectAuthenticator(context: selection) else { throw OperationError.userCanceled }
        guard offered.contains(type) else { throw OperationError.fido(.noSuitableAuthenticator) }
        target.log?("  authentication: \(type.rawValue) selected")

        // The user verification, checked by a local signature before anything goes to the server.
        let probe = Data("tessera-authenticator-probe\n".utf8) + Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        var secret: String?
        var domainState: Data?
        switch type {
        case .fingerprint, .faceRecognition:
            guard let verifier = parts.biometric else { throw OperationError.missingParameter(.biometricUserVerifier) }
            let fallback = registered.first { $0.type == type }?.allowDevicePasscodeAsFallback ?? false
            try await verifier.verifyBiometric(
                context: BiometricUserVerificationContext(username: username, authenticator: type, allowDevicePasscodeAsFallback: fallback)
            )
            domainState = verifier.domainState
            _ = try keys.sign(type, data: probe, unlockSecret: nil, currentBiometricDomainState: domainState)
        case .devicePasscode:
            guard let verifier = parts.passcode else { throw OperationError.missingParameter(.devicePasscodeUserVerifier) }
            try await verifier.verifyDevicePasscode(context: DevicePasscodeUserVerificationContext(username: username, authenticator: type))
            _ = try keys.sign(type, data: probe, unlockSecret: nil, currentBiometricDomainState: nil)
        case .pin:
            guard let verifier = parts.pin else { throw OperationError.missingParameter(.pinUserVerifier) }
            secret = try await Self.unlock(type, keys: keys, probe: probe) { last in
                try await verifier.verifyPin(context: PinUserVerificationContext(username: username, lastRecoverableError: last))
            }
        case .password:
            guard let verifier = parts.password else { throw OperationError.missingParameter(.passwordUserVerifier) }
            secret = try await Self.unlock(type, keys: keys, probe: probe) { last in
                try await verifier.verifyPassword(context: PasswordUserVerificationContext(username: username, lastRecoverableError: last))
            }
        }

        let challenge: AuthenticatorChallengeResponse = try await target.call(
            "POST", "/v1/devices/authenticator-challenges", body: AuthenticatorChallengeRequest(username: username, aaid: type.aaid),
            signedBy: deviceId
        )
        let statement = AuthenticatorAuthenticationRequest.statementBytes(
            challengeId: challenge.challengeId, deviceId: deviceId, authenticatorId: challenge.authenticatorId, challenge: challenge.challenge
        )
        let signature = try keys.sign(type, data: Data(statement), unlockSecret: secret, currentBiometricDomainState: domainState)
        let answer: AuthResultResponse = try await target.call(
            "POST", "/v1/devices/authenticator-logins",
            body: AuthenticatorAuthenticationRequest(challengeId: challenge.challengeId, signature: signature.derRepresentation.base64EncodedString()),
            signedBy: deviceId
        )
        client.authState.withLock { $0.token = answer.data }
        target.log?("  authentication: \(type.rawValue) accepted")
        return AuthenticationResult(token: answer.data, expiresIn: answer.expiresIn, authenticator: type, authenticatorId: challenge.authenticatorId)
    }

    /// Asks for the PIN or password until the key opens with it, at most ``maxVerificationAttempts`` times.
    /// - Returns: The secret that opened the key.
    /// - Throws: ``FidoErrorCode/authenticatorAccessDenied`` after the last wrong answer; what the key store
    ///   or the verifier throws otherwise.
    private static func unlock(
        _ type: AuthenticatorType, keys: any AuthenticatorKeyStore, probe: Data, ask: (RecoverableEnrollmentError?) async throws -> String
    ) async throws -> String {
        var last: RecoverableEnrollmentError?
        for attempt in 1...maxVerificationAttempts {
            let secret = try await ask(last)
            do {
                _ = try keys.sign(type, data: probe, unlockSecret: secret, currentBiometricDomainState: nil)
                return secret
            } catch FidoErrorCode.authenticatorAccessDenied where attempt < maxVerificationAttempts {
                last = RecoverableEnrollmentError(
                    message: "wrong \(type == .pin ? "PIN" : "password")", remainingAttempts: maxVerificationAttempts - attempt
                )
            }
        }
        throw FidoErrorCode.authenticatorAccessDenied
    }
}
