import Foundation
import TesseraCore
import Synchronization

/// How the user proves presence on the device: the wire type shared with the server, in TesseraCore
/// (``TesseraCore/LocalAuthType``), named here too so that `import Tessera` alone reaches it.
public typealias LocalAuthType = TesseraCore.LocalAuthType

/// Why local authentication failed: the seed's `BSA.LocalAuthHelper.ErrorCode` cases, plus
/// ``notEnrolled`` and ``lockedOut`` for the software PIN and password.
public enum LocalAuthErrorCode: String, Sendable, Equatable, CaseIterable {
    /// The enrolled biometrics changed since the domain state was saved.
    case domainStateChanged = "DOMAIN_STATE_CHANGED"
    /// Biometrics are not available now.
    case biometricNotAvailable = "BIOMETRIC_NOT_AVILABLE"
    /// The hardware has no biometric sensor.
    case biometricNotSupportHardware = "BIOMETRIC_NOT_SUPPORT_HARDWARE"
    /// Too many failed biometric attempts.
    case biometricLockOut = "BIOMETRIC_LOCK_OUT"
    /// No face or finger is enrolled on the device.
    case biometricNotEnrolledDevice = "BIOMETRIC_NOT_ENROLLED_DEVICE"
    /// No device passcode is set.
    case passcodeNotEnrolledDevice = "PASSCODE_NOT_ENROLLED_DEVICE"
    /// The user cancelled.
    case userCancel = "USER_CANCEL"
    /// The user chose the fallback button.
    case userFallback = "USER_FALLBACK"
    /// The user could not be verified.
    case authFailed = "AUTH_FAILED"
    /// No PIN or password has been set up yet.
    case notEnrolled = "NOT_ENROLLED"
    /// Too many wrong PINs or passwords; try again later.
    case lockedOut = "LOCKED_OUT"
}

/// A local authentication failure with its seed code.
public struct LocalAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The seed's error code.
    public let code: LocalAuthErrorCode
    /// When a lock-out ends, for ``LocalAuthErrorCode/lockedOut``.
    public let retryAfter: Date?
    /// Wrong entries still allowed before the verifier locks, for ``LocalAuthErrorCode/authFailed``
    /// from a software PIN or password (nil where the platform does not tell).
    public let remainingAttempts: Int?

    /// Creates an error.
    public init(_ code: LocalAuthErrorCode, retryAfter: Date? = nil, remainingAttempts: Int? = nil) {
        self.code = code
        self.retryAfter = retryAfter
        self.remainingAttempts = remainingAttempts
    }

    /// The seed's code name.
    public var description: String { code.rawValue }
}

/// What to verify (the parameters of the seed's `startSimpleAuth`).
public struct LocalAuthRequest: Sendable, Equatable {
    /// Which kind of verification.
    public var localAuthType: LocalAuthType
    /// Text the system shows while asking.
    public var reason: String
    /// Fail with ``LocalAuthErrorCode/domainStateChanged`` if the biometric set changed since `savedDomainState`.
    public var checkDomainStateChanged: Bool
    /// Offer the device passcode when biometrics fail.
    public var usePasscodeWhenFailed: Bool
    /// The domain state saved at enrolment (biometric only).
    public var savedDomainState: Data?

    /// Creates a request.
    public init(
        localAuthType: LocalAuthType, reason: String, checkDomainStateChanged: Bool = false,
        usePasscodeWhenFailed: Bool = false, savedDomainState: Data? = nil
    ) {
        self.localAuthType = localAuthType
        self.reason = reason
        self.checkDomainStateChanged = checkDomainStateChanged
        self.usePasscodeWhenFailed = usePasscodeWhenFailed
        self.savedDomainState = savedDomainState
    }
}

/// A successful local authentication.
public struct LocalAuthResult: Sendable, Equatable {
    /// The biometric domain state now (to save at enrolment and compare later), when there is one.
    public var domainState: Data?
    /// The secret the user entered, for verifiers that unlock a key with it (PIN, password).
    public var enteredSecret: String?

    /// Creates a result.
    public init(domainState: Data? = nil, enteredSecret: String? = nil) {
        self.domainState = domainState
        self.enteredSecret = enteredSecret
    }
}

/// One way to verify the user on the device. Implementations: ``SoftwareSecretAuthenticator``
/// (PIN and password, everywhere), ``ScriptedLocalAuthenticator`` (tests), and Apple's
/// LocalAuthentication where it exists (`AppleLocalAuthentication`, a ``LocalAuthenticationEngine``).
public protocol LocalAuthenticator: Sendable {
    /// Verifies the user; throws ``LocalAuthError`` with the seed's code when it fails.
    func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult
}

/// A verifier that answers from a script, for tests and demos (stands in for the platform's
/// biometric prompt, which cannot run here).
public final class ScriptedLocalAuthenticator: LocalAuthenticator, Sendable {
    private struct State {
        var script: [Result<LocalAuthResult, LocalAuthError>]
        var received: [LocalAuthRequest] = []
    }

    private let state: Mutex<State>

    /// Creates a verifier that answers with `script`, one entry per call, then fails with `authFailed`.
    public init(_ script: [Result<LocalAuthResult, LocalAuthError>]) { state = Mutex(State(script: script)) }

    /// The requests seen so far.
    public var requests: [LocalAuthRequest] { state.withLock { $0.received } }

    public func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult {
        let next: Result<LocalAuthResult, LocalAuthError> = state.withLock { state in
            state.received.append(request)
            return state.script.isEmpty ? .failure(LocalAuthError(.authFailed)) : state.script.removeFirst()
        }
        return try next.get()
    }
}
