import Crypto
import Foundation
import TesseraCore

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
///
/// It fails with an ``OperationError``: a missing part before any network call;
/// ``OperationError/userCanceled``; ``OperationError/fido(_:)`` (``FidoErrorCode/keyDisappearedPermanently``
/// for a biometric key invalidated by new OS biometrics, ``FidoErrorCode/authenticatorAccessDenied`` after
/// the last wrong PIN or password, ``FidoErrorCode/noSuitableAuthenticator`` for a type not registered
/// here); ``OperationError/server(_:)`` with the server's code (7204, 7208–7210) or ``ErrorCode/networkError``.
///
/// The parts it shares with ``Registration`` (user, selector, verifiers, HTTP, callbacks, running) are
/// ``AuthenticatorOperation``'s.
public final class Authentication: AuthenticatorOperation, Sendable {
    /// How many answers a PIN or password verifier may give before the authentication fails.
    public static let maxVerificationAttempts = 3

    /// The parts given so far (see ``AuthenticatorOperation``).
    public let parts: OperationParts<AuthenticationResult>

    init(client: TesseraClient) {
        parts = OperationParts(client: client, name: "authentication", userVerification: .userVerifier, perform: Self.authenticate)
    }

    // MARK: Builder (the parts only an authentication takes; the shared ones are AuthenticatorOperation's)

    /// Asks for the PIN of a PIN authenticator.
    @discardableResult
    public func pinUserVerifier(_ pinUserVerifier: any PinUserVerifier) -> Authentication { setting { $0.pinVerifier = pinUserVerifier } }

    /// Asks for the password of a password authenticator.
    @discardableResult
    public func passwordUserVerifier(_ passwordUserVerifier: any PasswordUserVerifier) -> Authentication {
        setting { $0.passwordVerifier = passwordUserVerifier }
    }

    // MARK: Running

    /// The run of ``execute()-(()async throws(OperationError)->AuthenticationResult)`` and of the
    /// callback ``execute()-(()->Void)``, with its parts checked.
    private static func authenticate(client: TesseraClient, parts: OperationParts<AuthenticationResult>.Values) async throws -> AuthenticationResult {
        guard let username = parts.username, let selector = parts.selector else { throw OperationError.missingParameter(.username) }
        guard let deviceId = try client.keyStore.loadState()?.deviceId else { throw OperationError.deviceNotRegistered }
        let target = client.operationClient(serverURL: nil, headers: parts.requestHeaders, handler: parts.httpHandler)
        let keys = try client.authenticatorKeyStore

        let registered = try await target.listAuthenticators()
        let policy = try await target.fetchPolicy()
        let type = try await target.selectAuthenticator(
            among: registered.map(\.type), username: username, policy: policy, selector: selector, for: "authentication",
            refusal: { _ in OperationError.fido(.noSuitableAuthenticator) }
        )

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
            guard let verifier = parts.pinVerifier else { throw OperationError.missingParameter(.pinUserVerifier) }
            secret = try await Self.unlock(type, keys: keys, probe: probe) { last in
                try await verifier.verifyPin(context: PinUserVerificationContext(username: username, lastRecoverableError: last))
            }
        case .password:
            guard let verifier = parts.passwordVerifier else { throw OperationError.missingParameter(.passwordUserVerifier) }
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
