import TesseraCore

/// Why an authenticator operation such as ``Registration`` failed (the seed's `NMAOperationError`).
///
/// Every case has a stable ``kind`` for logs and analytics, and a human-readable ``message``.
public enum OperationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A part of the operation the seed marks as required was not provided.
    case missingParameter(Parameter)
    /// A provided part cannot be used (for instance a server URL without host).
    case invalidParameter(Parameter, reason: String)
    /// The user cancelled (the selector chose nothing, or a verifier or enroller was cancelled).
    case userCanceled
    /// The selector chose an authenticator that the client's policy does not allow.
    case authenticatorNotAllowed(AuthenticatorType)
    /// The enrolment broke the client's policy on the device (a PIN or password still breaking the
    /// rules after the last attempt, or a passcode fallback the policy forbids), with the code the
    /// server would have answered.
    case policyViolation(ErrorCode, message: String)
    /// This device has not been registered with Tessera yet (sign up or re-register first).
    case deviceNotRegistered
    /// A call to the server failed: the server refused it (its code) or could not be reached
    /// (``ErrorCode/networkError``).
    case server(TesseraError)
    /// The authenticator failed with a FIDO UAF error.
    case fido(FidoErrorCode)
    /// Anything else.
    case unknown(String)

    /// A part of an operation, as named by the seed's builder methods.
    public enum Parameter: String, Sendable, Equatable, CaseIterable {
        /// ``Registration/username(_:)``.
        case username
        /// ``Registration/serverUrl(_:)``.
        case serverUrl
        /// ``Registration/authenticatorSelector(_:)``.
        case authenticatorSelector
        /// At least one of the biometric or device passcode verifier, or the PIN or password enroller.
        case userVerifierOrEnroller
        /// ``Registration/biometricUserVerifier(_:)``.
        case biometricUserVerifier
        /// ``Registration/devicePasscodeUserVerifier(_:)``.
        case devicePasscodeUserVerifier
        /// ``Registration/pinEnroller(_:)``.
        case pinEnroller
        /// ``Registration/passwordEnroller(_:)``.
        case passwordEnroller
        /// ``Registration/onSuccess(_:)-(()->Void)``.
        case onSuccess
        /// ``Registration/onError(_:)``.
        case onError
        /// At least one of the PIN, password, biometric or device passcode user verifiers (``Authentication``).
        case userVerifier
        /// ``Authentication/pinUserVerifier(_:)``.
        case pinUserVerifier
        /// ``Authentication/passwordUserVerifier(_:)``.
        case passwordUserVerifier
    }

    /// The stable kind of an ``OperationError``.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// ``OperationError/missingParameter(_:)``.
        case missingParameter = "MISSING_PARAMETER"
        /// ``OperationError/invalidParameter(_:reason:)``.
        case invalidParameter = "INVALID_PARAMETER"
        /// ``OperationError/userCanceled``.
        case userCanceled = "USER_CANCELED"
        /// ``OperationError/authenticatorNotAllowed(_:)``.
        case authenticatorNotAllowed = "AUTHENTICATOR_NOT_ALLOWED"
        /// ``OperationError/policyViolation(_:message:)``.
        case policyViolation = "POLICY_VIOLATION"
        /// ``OperationError/deviceNotRegistered``.
        case deviceNotRegistered = "DEVICE_NOT_REGISTERED"
        /// ``OperationError/server(_:)``.
        case server = "SERVER"
        /// ``OperationError/fido(_:)``.
        case fido = "FIDO"
        /// ``OperationError/unknown(_:)``.
        case unknown = "UNKNOWN"
    }

    /// The stable kind.
    public var kind: Kind {
        switch self {
        case .missingParameter: .missingParameter
        case .invalidParameter: .invalidParameter
        case .userCanceled: .userCanceled
        case .authenticatorNotAllowed: .authenticatorNotAllowed
        case .policyViolation: .policyViolation
        case .deviceNotRegistered: .deviceNotRegistered
        case .server: .server
        case .fido: .fido
        case .unknown: .unknown
        }
    }

    /// The numeric code of a server or policy error (``ErrorCode``), nil for the others.
    public var code: ErrorCode? {
        switch self {
        case .server(let error): error.code
        case .policyViolation(let code, _): code
        case .authenticatorNotAllowed: .authenticatorNotAllowed
        default: nil
        }
    }

    /// Whether the server could not be reached.
    public var isNetworkError: Bool {
        if case .server(let error) = self { return error.code == .networkError }
        return false
    }

    /// A human-readable message.
    public var message: String {
        switch self {
        case .missingParameter(let parameter): "\(parameter.rawValue) is required"
        case .invalidParameter(let parameter, let reason): "\(parameter.rawValue) is invalid: \(reason)"
        case .userCanceled: "the user cancelled"
        case .authenticatorNotAllowed(let type): "the authenticator \(type.rawValue) is not allowed by the client's policy"
        case .policyViolation(_, let message): message
        case .deviceNotRegistered: "this device is not registered: sign up or re-register first"
        case .server(let error): error.message
        case .fido(let code): "FIDO error \(code.rawValue)"
        case .unknown(let message): message
        }
    }

    /// `"<KIND>: <message>"`.
    public var description: String { "\(kind.rawValue): \(message)" }

    /// Equal when the cases and their values are; server errors compare by code and message.
    public static func == (lhs: OperationError, rhs: OperationError) -> Bool {
        switch (lhs, rhs) {
        case (.missingParameter(let a), .missingParameter(let b)): a == b
        case (.invalidParameter(let a, let x), .invalidParameter(let b, let y)): a == b && x == y
        case (.userCanceled, .userCanceled), (.deviceNotRegistered, .deviceNotRegistered): true
        case (.authenticatorNotAllowed(let a), .authenticatorNotAllowed(let b)): a == b
        case (.policyViolation(let a, let x), .policyViolation(let b, let y)): a == b && x == y
        case (.server(let a), .server(let b)): a.code == b.code && a.message == b.message
        case (.fido(let a), .fido(let b)): a == b
        case (.unknown(let a), .unknown(let b)): a == b
        default: false
        }
    }

    /// Maps any error a step of an operation threw to an ``OperationError``: local-authentication
    /// cancellations become ``userCanceled``, missing enrolments and lock-outs FIDO errors, key-store
    /// and FIDO errors ``fido(_:)``, Tessera errors ``server(_:)``.
    public init(_ error: any Error) {
        switch error {
        case let error as OperationError: self = error
        case let error as FidoErrorCode: self = error == .userCancelled ? .userCanceled : .fido(error)
        case let error as TesseraError: self = .server(error)
        case is CancellationError: self = .userCanceled
        case let error as LocalAuthError:
            switch error.code {
            case .userCancel, .userFallback: self = .userCanceled
            case .biometricNotEnrolledDevice, .passcodeNotEnrolledDevice, .notEnrolled: self = .fido(.userNotEnrolled)
            case .biometricLockOut, .lockedOut: self = .fido(.userLockout)
            case .domainStateChanged: self = .fido(.keyDisappearedPermanently)
            case .authFailed: self = .fido(.authenticatorAccessDenied)
            case .biometricNotAvailable, .biometricNotSupportHardware: self = .fido(.noSuitableAuthenticator)
            }
        case let error as KeychainError: self = error.fidoErrorCode == .userCancelled ? .userCanceled : .fido(error.fidoErrorCode)
        case let error as KeyStoreError:
            self = .fido(error == .locked ? .authenticatorAccessDenied : .noSuitableAuthenticator)
        default: self = .unknown(String(describing: error))
        }
    }
}
