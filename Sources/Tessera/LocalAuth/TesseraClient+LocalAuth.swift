import Foundation
import TesseraCore

extension TesseraClient {
    /// The seed's `BSA.LocalAuth.startSimpleAuth`: verifies the user with `localAuthenticator` (the
    /// platform's biometric or passcode prompt, or a PIN). Its success is what
    /// ``requestSignUp(userData:)`` and ``requestRegisterDevice(existingUserData:)`` then use, once,
    /// without a second prompt.
    /// - Parameters:
    ///   - checkDomainStateChanged: Compare the biometric domain state with the one saved when this
    ///     device enrolled; a difference (biometrics added or removed since) fails with
    ///     ``LocalAuthErrorCode/domainStateChanged``. Leave false before sign-up: nothing is saved yet.
    ///   - usePasscodeWhenFailed: Passed to the authenticator: fall back to the device passcode when
    ///     biometrics fail.
    /// - Returns: The outcome (domain state, and the entered PIN or password where there is one).
    /// - Throws: ``LocalAuthError`` with the seed's code.
    @discardableResult
    public func startSimpleAuth(
        localAuthType: LocalAuthType, reason: String, checkDomainStateChanged: Bool, usePasscodeWhenFailed: Bool,
        localAuthenticator: any LocalAuthenticator
    ) async throws -> LocalAuthResult {
        let saved = checkDomainStateChanged ? try keyStore.loadState()?.domainState : nil
        let request = LocalAuthRequest(
            localAuthType: localAuthType, reason: reason, checkDomainStateChanged: checkDomainStateChanged,
            usePasscodeWhenFailed: usePasscodeWhenFailed, savedDomainState: saved
        )
        log?("local authentication (\(localAuthType.rawValue))")
        let result = try await localAuthenticator.authenticate(request)
        if checkDomainStateChanged, localAuthType == .biometric, let saved, result.domainState != saved {
            log?("✗ local authentication: the enrolled biometrics changed")
            throw LocalAuthError(.domainStateChanged)
        }
        localAuthentication.withLock { $0 = (localAuthType, result) }
        return result
    }

    /// Prompts now (the convenience forms of sign-up and re-registration).
    func authenticateLocally(authType: LocalAuthType, localAuthenticator: any LocalAuthenticator, reason: String) async throws -> LocalAuthResult {
        try await startSimpleAuth(
            localAuthType: authType, reason: reason, checkDomainStateChanged: false, usePasscodeWhenFailed: false, localAuthenticator: localAuthenticator
        )
        return try takeLocalAuthentication(of: authType)
    }

    /// The last successful ``startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:)``
    /// of `type`, used up by this call.
    func takeLocalAuthentication(of type: LocalAuthType) throws -> LocalAuthResult {
        let taken = localAuthentication.withLock { last -> LocalAuthResult? in
            defer { last = nil }
            guard let last, last.type == type else { return nil }
            return last.result
        }
        guard let taken else {
            throw TesseraError(
                code: .localAuthRequired,
                message: "Local authentication (\(type.rawValue)) must succeed first: call startSimpleAuth with localAuthType \(type.rawValue)"
            )
        }
        return taken
    }
}
