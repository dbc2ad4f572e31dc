import Crypto
import Foundation
import TesseraCore

/// Registers a new authenticator for this device (the seed's `NMARegistration`), built step by step
/// and run with ``execute()-(()->Void)`` (callbacks) or ``execute()-(()async throws(OperationError)->AuthenticatorInfo)``.
///
/// ```swift
/// tessera.registration()
///     .username("alice")
///     .deviceInformation(DeviceInformation(name: "Alice's phone", fcmRegistrationToken: token))
///     .authenticatorSelector(mySelector)
///     .biometricUserVerifier(myBiometricPrompt)
///     .pinEnroller(myPinScreen)
///     .onSuccess { info in … }
///     .onError { error in … }
///     .execute()
/// ```
///
/// Required: ``username(_:)``, ``authenticatorSelector(_:)``, at least one of ``biometricUserVerifier(_:)``,
/// ``devicePasscodeUserVerifier(_:)``, ``pinEnroller(_:)`` and ``passwordEnroller(_:)``, and for the
/// callback form ``onSuccess(_:)-(()->Void)`` and ``onError(_:)``. They are checked before any network
/// call, each with its own ``OperationError/missingParameter(_:)``.
///
/// The run: fetch the client's policy (`GET /v1/policy`), let the selector choose among the allowed
/// authenticators, verify the user (biometric, device passcode) or enrol the PIN or password (checked
/// against the policy's rules on the device, asking again up to ``maxEnrollmentAttempts`` answers),
/// generate the authenticator's P-256 key in the ``AuthenticatorKeyStore``, and send its public key with a
/// proof of possession (`POST /v1/devices/authenticators`, signed by the device key).
///
/// It fails with an ``OperationError``: a missing part before any network call;
/// ``OperationError/userCanceled``; ``OperationError/authenticatorNotAllowed(_:)``;
/// ``OperationError/policyViolation(_:message:)``; ``OperationError/fido(_:)``; ``OperationError/server(_:)``
/// with the server's code (7201–7207) or ``ErrorCode/networkError``.
///
/// The parts it shares with ``Authentication`` (user, selector, verifiers, HTTP, callbacks, running) are
/// ``AuthenticatorOperation``'s. The builder is safe to use from several threads; each run takes a
/// snapshot of its parts.
public final class Registration: AuthenticatorOperation, Sendable {
    /// How many answers a PIN or password enroller may give before the registration fails.
    public static let maxEnrollmentAttempts = 3

    /// The parts given so far (see ``AuthenticatorOperation``).
    public let parts: OperationParts<AuthenticatorInfo>

    init(client: TesseraClient) {
        parts = OperationParts(client: client, name: "registration", userVerification: .userVerifierOrEnroller, perform: Self.register)
    }

    // MARK: Builder (the parts only a registration takes; the shared ones are AuthenticatorOperation's)

    /// The server to register with: only its scheme, host and port are used, the path stays the one of
    /// the client's ``TesseraClient/Configuration/serverURL`` (see ``combinedServerURL(base:provided:)``).
    /// Without it, the client's server is used.
    @discardableResult
    public func serverUrl(_ serverUrl: URL) -> Registration { setting { $0.serverUrl = serverUrl } }

    /// Extra authorisation for the registration request (optional; see ``AuthorizationProvider``).
    @discardableResult
    public func authorizationProvider(_ authorizationProvider: any AuthorizationProvider) -> Registration {
        setting { $0.authorizationProvider = authorizationProvider }
    }

    /// The device's name and push token (optional; the server keeps the first it receives).
    @discardableResult
    public func deviceInformation(_ deviceInformation: DeviceInformation) -> Registration { setting { $0.deviceInformation = deviceInformation } }

    /// Asks the user for the PIN of a PIN authenticator.
    @discardableResult
    public func pinEnroller(_ pinEnroller: any PinEnroller) -> Registration { setting { $0.pinEnroller = pinEnroller } }

    /// Asks the user for the password of a password authenticator.
    @discardableResult
    public func passwordEnroller(_ passwordEnroller: any PasswordEnroller) -> Registration { setting { $0.passwordEnroller = passwordEnroller } }

    /// Whether a biometric authenticator may fall back to the device passcode (default `false`; the
    /// client's policy must allow it).
    @discardableResult
    public func allowDevicePasscodeAsFallback(_ allowDevicePasscodeAsFallback: Bool) -> Registration {
        setting { $0.allowDevicePasscodeAsFallback = allowDevicePasscodeAsFallback }
    }

    /// Whether new OS biometrics invalidate a biometric authenticator (default `true`): its key then
    /// fails with ``FidoErrorCode/keyDisappearedPermanently`` and a new registration is needed.
    @discardableResult
    public func invalidateOnNewOsBiometrics(_ invalidateOnNewOsBiometrics: Bool) -> Registration {
        setting { $0.invalidateOnNewOsBiometrics = invalidateOnNewOsBiometrics }
    }

    // MARK: Running

    /// The run of ``execute()-(()async throws(OperationError)->AuthenticatorInfo)`` and of the callback
    /// ``execute()-(()->Void)``, with its parts checked.
    private static func register(client: TesseraClient, parts: OperationParts<AuthenticatorInfo>.Values) async throws -> AuthenticatorInfo {
        guard let username = parts.username, let selector = parts.selector else { throw OperationError.missingParameter(.username) }
        let serverURL = try parts.serverUrl.map { try Self.combinedServerURL(base: client.configuration.serverURL, provided: $0) }
        let target = client.operationClient(serverURL: serverURL, headers: parts.requestHeaders, handler: parts.httpHandler)
        guard let deviceId = try client.keyStore.loadState()?.deviceId else { throw OperationError.deviceNotRegistered }
        let keys = try client.authenticatorKeyStore

        let policy = try await target.fetchPolicy()
        let type = try await target.selectAuthenticator(
            among: policy.allowedAuthenticators, username: username, policy: policy, selector: selector, for: "registration",
            refusal: { OperationError.authenticatorNotAllowed($0) }
        )

        let fallback = type.isBiometric && parts.allowDevicePasscodeAsFallback
        let invalidate = type.isBiometric && parts.invalidateOnNewOsBiometrics
        var secret: String?
        var domainState: Data?
        switch type {
        case .fingerprint, .faceRecognition:
            guard let verifier = parts.biometric else { throw OperationError.missingParameter(.biometricUserVerifier) }
            if fallback, !policy.allowDevicePasscodeFallback {
                throw OperationError.policyViolation(
                    .passcodeFallbackNotAllowed, message: "the client's policy does not allow the device passcode as fallback"
                )
            }
            try await keepingNoLocalKey(of: type, in: keys, target: target)
            try await verifier.verifyBiometric(
                context: BiometricUserVerificationContext(username: username, authenticator: type, allowDevicePasscodeAsFallback: fallback)
            )
            if invalidate {
                guard let state = verifier.domainState else { throw OperationError.fido(.userNotEnrolled) }
                domainState = state
            }
        case .devicePasscode:
            guard let verifier = parts.passcode else { throw OperationError.missingParameter(.devicePasscodeUserVerifier) }
            try await keepingNoLocalKey(of: type, in: keys, target: target)
            try await verifier.verifyDevicePasscode(context: DevicePasscodeUserVerificationContext(username: username, authenticator: type))
        case .pin:
            guard let enroller = parts.pinEnroller else { throw OperationError.missingParameter(.pinEnroller) }
            try await keepingNoLocalKey(of: type, in: keys, target: target)
            secret = try await Self.enrollPin(with: enroller, username: username, rules: policy.pin)
        case .password:
            guard let enroller = parts.passwordEnroller else { throw OperationError.missingParameter(.passwordEnroller) }
            try await keepingNoLocalKey(of: type, in: keys, target: target)
            secret = try await Self.enrollPassword(with: enroller, username: username, rules: policy.password)
        }

        let publicKey = try keys.generate(for: type, unlockSecret: secret, biometricDomainState: domainState)
        do {
            let publicKeyBase64 = publicKey.x963Representation.base64EncodedString()
            let proof = AuthenticatorRegistrationRequest.proofBytes(deviceId: deviceId, aaid: type.aaid, publicKey: publicKeyBase64)
            let signature = try keys.sign(type, data: Data(proof), unlockSecret: secret, currentBiometricDomainState: domainState)
            let request = AuthenticatorRegistrationRequest(
                username: username, aaid: type.aaid, publicKey: publicKeyBase64, keySignature: signature.derRepresentation.base64EncodedString(),
                pin: type == .pin ? secret : nil, password: type == .password ? secret : nil,
                allowDevicePasscodeAsFallback: fallback, invalidateOnNewOsBiometrics: invalidate,
                deviceName: parts.deviceInformation?.name, pushToken: parts.deviceInformation?.pushToken
            )
            let extra = try await parts.authorizationProvider?.authorizationHeaders() ?? [:]
            let answer = try await target.exchangeData(
                "POST", "/v1/devices/authenticators", bytes: try JSONEncoder().encode(request), signedBy: deviceId, extraHeaders: extra
            )
            do {
                let info = try JSONDecoder().decode(AuthenticatorInfo.self, from: answer)
                target.log?("  registration: \(type.rawValue) registered as \(info.id)")
                return info
            } catch {
                throw TesseraError(code: .invalidResponse, message: "Unexpected answer from the server: \(error)")
            }
        } catch {
            try? keys.delete(type)
            throw error
        }
    }

    /// Refuses to replace a local key that the server still lists as an active authenticator (the server
    /// would refuse the registration with ``ErrorCode/authenticatorExists`` and the working key would be lost).
    private static func keepingNoLocalKey(of type: AuthenticatorType, in keys: any AuthenticatorKeyStore, target: TesseraClient) async throws {
        guard try keys.publicKey(for: type) != nil else { return }
        if try await target.listAuthenticators().contains(where: { $0.type == type }) {
            throw TesseraError(
                code: .authenticatorExists, message: "This device already has an active \(type.rawValue) authenticator: delete it first"
            )
        }
    }

    /// Asks `enroller` for a PIN until one keeps `rules`, at most ``maxEnrollmentAttempts`` times, passing
    /// the previous refusal in ``PinEnrollmentContext/lastRecoverableError``.
    /// - Returns: The first PIN keeping the rules.
    /// - Throws: ``OperationError/policyViolation(_:message:)`` with ``ErrorCode/pinPolicyViolation`` after the
    ///   last refused answer; whatever the enroller throws, mapped by ``OperationError/init(_:)``.
    public static func enrollPin(with enroller: any PinEnroller, username: String, rules: PINRules) async throws(OperationError) -> String {
        try await enroll(code: .pinPolicyViolation) { last in
            try await enroller.enrollPin(context: PinEnrollmentContext(username: username, policy: rules, lastRecoverableError: last))
        } violation: { rules.violation(of: $0) }
    }

    /// Asks `enroller` for a password until one keeps `rules`, at most ``maxEnrollmentAttempts`` times,
    /// passing the previous refusal in ``PasswordEnrollmentContext/lastRecoverableError``.
    /// - Returns: The first password keeping the rules.
    /// - Throws: ``OperationError/policyViolation(_:message:)`` with ``ErrorCode/passwordPolicyViolation`` after
    ///   the last refused answer; whatever the enroller throws, mapped by ``OperationError/init(_:)``.
    public static func enrollPassword(
        with enroller: any PasswordEnroller, username: String, rules: PasswordRules
    ) async throws(OperationError) -> String {
        try await enroll(code: .passwordPolicyViolation) { last in
            try await enroller.enrollPassword(context: PasswordEnrollmentContext(username: username, policy: rules, lastRecoverableError: last))
        } violation: { rules.violation(of: $0) }
    }

    private static func enroll(
        code: ErrorCode, ask: (RecoverableEnrollmentError?) async throws -> String, violation: (String) -> String?
    ) async throws(OperationError) -> String {
        var last: RecoverableEnrollmentError?
        for attempt in 1...maxEnrollmentAttempts {
            let answer: String
            do {
                answer = try await ask(last)
            } catch {
                throw OperationError(error)
            }
            guard let broken = violation(answer) else { return answer }
            if attempt == maxEnrollmentAttempts { throw .policyViolation(code, message: broken) }
            last = RecoverableEnrollmentError(message: broken, remainingAttempts: maxEnrollmentAttempts - attempt)
        }
        throw .policyViolation(code, message: "no answer")
    }

    /// The URL a registration with ``serverUrl(_:)`` talks to: the scheme, host and port of `provided`
    /// with the path of `base` (the seed's rule: all servers have the same endpoints).
    ///
    /// - `https://server/path` + `https://other.server` → `https://other.server/path`
    /// - `https://server:443/path` + `https://other.server/path` → `https://other.server/path`
    /// - `https://server/path` + `http://other.server:80/otherpath` → `http://other.server:80/path`
    /// - Throws: ``OperationError/invalidParameter(_:reason:)`` when `provided` has no scheme or host.
    public static func combinedServerURL(base: URL, provided: URL) throws(OperationError) -> URL {
        guard let given = URLComponents(url: provided, resolvingAgainstBaseURL: false), let scheme = given.scheme, !scheme.isEmpty,
              let host = given.host, !host.isEmpty
        else { throw .invalidParameter(.serverUrl, reason: "\(provided.absoluteString) has no scheme or host") }
        var combined = URLComponents()
        combined.scheme = scheme
        combined.host = host
        combined.port = given.port
        let basePath = URLComponents(url: base, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        var path = basePath
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        combined.percentEncodedPath = path == "/" ? "" : path
        guard let url = combined.url else { throw .invalidParameter(.serverUrl, reason: "cannot combine \(provided.absoluteString) with \(base.absoluteString)") }
        return url
    }
}
