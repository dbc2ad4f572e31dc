import Foundation

/// Apple's local authentication in plain Swift over the ``LocalAuthenticationContext`` seam: the
/// seed's `startSimpleAuth` behaviour (biometry or passcode, `usePasscodeWhenFailed`,
/// `checkDomainStateChanged`), every `LAError` mapped to the seed's code, and one retry with a fresh
/// context when the context was invalidated. `AppleLocalAuthentication` is this over `LAContext`;
/// the Linux tests run it over a fake.
public struct LocalAuthenticationEngine<Context: LocalAuthenticationContext>: LocalAuthenticator, Sendable {
    /// Makes a fresh context (one per authentication, as Apple advises).
    public typealias ContextFactory = @Sendable () -> Context

    private let makeContext: ContextFactory

    /// Creates an engine.
    /// - Parameter makeContext: Makes a context (`{ LAContext() }` on Apple platforms).
    public init(makeContext: @escaping ContextFactory) {
        self.makeContext = makeContext
    }

    /// The biometric sensor of the device (the seed's biometry type), asked without a prompt.
    public func biometryKind() -> BiometryKind {
        let context = makeContext()
        var error: NSError?
        _ = context.canEvaluatePolicy(policy(.deviceOwnerAuthenticationWithBiometrics), error: &error)
        return BiometryKind(rawValue: context.biometryType.rawValue) ?? .none
    }

    /// The biometric domain state now (nil when no biometry is enrolled), asked without a prompt.
    public func currentDomainState() -> Data? {
        let context = makeContext()
        var error: NSError?
        guard context.canEvaluatePolicy(policy(.deviceOwnerAuthenticationWithBiometrics), error: &error) else { return nil }
        return context.biometricDomainState
    }

    /// Verifies the user for `request` (``LocalAuthType/biometric`` or ``LocalAuthType/passcode``;
    /// ``LocalAuthType/none`` succeeds at once).
    /// - Throws: ``LocalAuthError`` with the seed's code: `DOMAIN_STATE_CHANGED` before any prompt when
    ///   `checkDomainStateChanged` is set and the biometry changed since `savedDomainState`;
    ///   ``LocalAuthErrorCode/notEnrolled`` for PIN and password (software verifiers handle those).
    public func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult {
        do {
            do {
                return try await authenticateOnce(request, context: makeContext())
            } catch let failure as Failure where failure.code == .invalidContext {
                return try await authenticateOnce(request, context: makeContext())  // once, with a fresh context
            }
        } catch let failure as Failure {
            throw failure.error
        }
    }

    /// An evaluation that failed with an `LAError`.
    private struct Failure: Error {
        let code: LocalAuthenticationErrorCode?
        let error: LocalAuthError
    }

    private func authenticateOnce(_ request: LocalAuthRequest, context: Context) async throws -> LocalAuthResult {
        switch request.localAuthType {
        case .none:
            return LocalAuthResult()
        case .pin, .password:
            throw Failure(code: nil, error: LocalAuthError(.notEnrolled))
        case .passcode:
            try await evaluate(.deviceOwnerAuthentication, request, context)
        case .biometric:
            // "" hides the fallback button when the passcode may not stand in.
            context.localizedFallbackTitle = request.usePasscodeWhenFailed ? nil : ""
            do {
                try checkCanEvaluate(.deviceOwnerAuthenticationWithBiometrics, context)
                try checkDomainState(request, context)
                try await evaluate(.deviceOwnerAuthenticationWithBiometrics, request, context)
            } catch let failure as Failure
                where request.usePasscodeWhenFailed && (failure.code?.allowsPasscodeFallback ?? false) {
                try await evaluate(.deviceOwnerAuthentication, request, context)
            }
        }
        return LocalAuthResult(domainState: request.localAuthType == .biometric ? context.biometricDomainState : nil)
    }

    private func policy(_ policy: LocalAuthenticationPolicy) -> Context.Policy {
        guard let converted = Context.Policy(rawValue: policy.rawValue) else {
            preconditionFailure("LAPolicy has no raw value \(policy.rawValue)")
        }
        return converted
    }

    private func checkCanEvaluate(_ policy: LocalAuthenticationPolicy, _ context: Context) throws {
        var error: NSError?
        guard context.canEvaluatePolicy(self.policy(policy), error: &error) else { throw failure(error, context) }
    }

    /// `DOMAIN_STATE_CHANGED` when asked to check and the enrolled biometry is not the saved one.
    private func checkDomainState(_ request: LocalAuthRequest, _ context: Context) throws {
        guard request.checkDomainStateChanged, let saved = request.savedDomainState else { return }
        if LocalAuthenticationEngine.domainStateChanged(saved: saved, current: context.biometricDomainState) {
            throw Failure(code: nil, error: LocalAuthError(.domainStateChanged))
        }
    }

    /// Whether the biometry changed since `saved`: a different state, or none now (all removed).
    public static func domainStateChanged(saved: Data, current: Data?) -> Bool { current != saved }

    private func evaluate(_ policy: LocalAuthenticationPolicy, _ request: LocalAuthRequest, _ context: Context) async throws {
        if policy == .deviceOwnerAuthentication { try checkCanEvaluate(policy, context) }
        do {
            guard try await context.evaluatePolicy(self.policy(policy), localizedReason: request.reason) else {
                throw Failure(code: .authenticationFailed, error: LocalAuthError(.authFailed))
            }
        } catch let failure as Failure {
            throw failure
        } catch is CancellationError {
            throw Failure(code: .appCancel, error: LocalAuthError(.userCancel))
        } catch {
            throw self.failure(error as NSError, context)
        }
    }

    private func failure(_ error: NSError?, _ context: Context) -> Failure {
        guard let error, error.domain == localAuthenticationErrorDomain else {
            return Failure(code: nil, error: LocalAuthError(.authFailed))
        }
        let hardware = context.biometryType.rawValue != BiometryKind.none.rawValue
        return Failure(
            code: LocalAuthenticationErrorCode(rawValue: error.code),
            error: LocalAuthError(LocalAuthenticationErrorCode.seedCode(forRawValue: error.code, hasBiometricHardware: hardware))
        )
    }
}
