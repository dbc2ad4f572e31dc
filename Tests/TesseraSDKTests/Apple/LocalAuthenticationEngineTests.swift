import Foundation
import Testing
import Tessera

/// The seed's `startSimpleAuth` behaviour of ``LocalAuthenticationEngine`` over a fake `LAContext`.
@Suite("Apple local authentication logic")
struct LocalAuthenticationEngineTests {
    let biometric = LocalAuthRequest(localAuthType: .biometric, reason: "Confirm it is you")

    @Test("biometry succeeds with the biometrics-only policy, no fallback button, and reports the domain state")
    func biometricSuccess() async throws {
        let log = FakeLALog(FakeLAScript(domainState: Data([7])))
        let result = try await log.engine().authenticate(biometric)
        #expect(result.domainState == Data([7]))
        #expect(log.evaluated == [.deviceOwnerAuthenticationWithBiometrics])
        #expect(log.fallbackTitles == [""])
    }

    @Test("a changed domain state fails with DOMAIN_STATE_CHANGED before any prompt; the same one passes")
    func domainStateChanged() async throws {
        let log = FakeLALog(FakeLAScript(domainState: Data([2])))
        var request = biometric
        request.checkDomainStateChanged = true
        request.savedDomainState = Data([1])
        await #expect(throws: LocalAuthError(.domainStateChanged)) { try await log.engine().authenticate(request) }
        #expect(log.evaluated.isEmpty)
        log.setDomainState(nil)  // every finger or face removed
        await #expect(throws: LocalAuthError(.domainStateChanged)) { try await log.engine().authenticate(request) }
        log.setDomainState(Data([1]))
        _ = try await log.engine().authenticate(request)
        #expect(log.evaluated == [.deviceOwnerAuthenticationWithBiometrics])
        #expect(LocalAuthenticationEngine<FakeLAContext>.domainStateChanged(saved: Data([1]), current: Data([1])) == false)
    }

    @Test("each LAError of the prompt ends with the seed's code when the passcode may not stand in",
          arguments: LocalAuthenticationErrorCode.allCases.filter { $0 != .invalidContext })
    func promptErrors(_ code: LocalAuthenticationErrorCode) async {
        let log = FakeLALog(FakeLAScript(evaluations: [.deviceOwnerAuthenticationWithBiometrics: [code.rawValue]]))
        await #expect(throws: LocalAuthError(code.seedCode(hasBiometricHardware: true))) { try await log.engine().authenticate(biometric) }
        #expect(log.evaluated == [.deviceOwnerAuthenticationWithBiometrics])
    }

    @Test("without a biometric sensor, biometryNotAvailable is BIOMETRIC_NOT_SUPPORT_HARDWARE, asked without a prompt")
    func noHardware() async {
        let log = FakeLALog(FakeLAScript(biometry: .none, cannotEvaluate: [.deviceOwnerAuthenticationWithBiometrics: -6]))
        await #expect(throws: LocalAuthError(.biometricNotSupportHardware)) { try await log.engine().authenticate(biometric) }
        #expect(log.evaluated.isEmpty)
        #expect(log.engine().biometryKind() == BiometryKind.none)
        #expect(log.engine().currentDomainState() == nil)
    }

    @Test("usePasscodeWhenFailed: after a biometric failure that allows it, the device passcode is asked on the same context",
          arguments: LocalAuthenticationErrorCode.allCases.filter(\.allowsPasscodeFallback))
    func passcodeFallback(_ code: LocalAuthenticationErrorCode) async throws {
        let log = FakeLALog(FakeLAScript(evaluations: [.deviceOwnerAuthenticationWithBiometrics: [code.rawValue]]))
        var request = biometric
        request.usePasscodeWhenFailed = true
        _ = try await log.engine().authenticate(request)
        #expect(log.evaluated == [.deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthentication])
        #expect(log.fallbackTitles == [nil])
        #expect(log.contextsMade == 1)
    }

    @Test("usePasscodeWhenFailed: biometry that cannot be evaluated (locked out) goes to the passcode; a cancel does not")
    func fallbackFromCanEvaluate() async throws {
        let log = FakeLALog(FakeLAScript(cannotEvaluate: [.deviceOwnerAuthenticationWithBiometrics: -8]))
        var request = biometric
        request.usePasscodeWhenFailed = true
        _ = try await log.engine().authenticate(request)
        #expect(log.evaluated == [.deviceOwnerAuthentication])
        let cancelled = FakeLALog(FakeLAScript(evaluations: [.deviceOwnerAuthenticationWithBiometrics: [-2]]))
        await #expect(throws: LocalAuthError(.userCancel)) { try await cancelled.engine().authenticate(request) }
        #expect(cancelled.evaluated == [.deviceOwnerAuthenticationWithBiometrics])
    }

    @Test("the passcode fallback's own failure is reported (no passcode set)")
    func fallbackFails() async {
        let log = FakeLALog(FakeLAScript(
            cannotEvaluate: [.deviceOwnerAuthentication: -5], evaluations: [.deviceOwnerAuthenticationWithBiometrics: [-3]]
        ))
        var request = biometric
        request.usePasscodeWhenFailed = true
        await #expect(throws: LocalAuthError(.passcodeNotEnrolledDevice)) { try await log.engine().authenticate(request) }
    }

    @Test("an invalidated context is retried once with a fresh one, then reported")
    func retryInvalidContext() async throws {
        let once = FakeLALog(FakeLAScript(evaluations: [.deviceOwnerAuthenticationWithBiometrics: [-10]]))
        _ = try await once.engine().authenticate(biometric)
        #expect(once.contextsMade == 2)
        let twice = FakeLALog(FakeLAScript(evaluations: [.deviceOwnerAuthenticationWithBiometrics: [-10, -10, nil]]))
        await #expect(throws: LocalAuthError(.authFailed)) { try await twice.engine().authenticate(biometric) }
        #expect(twice.contextsMade == 2)
    }

    @Test("PASSCODE evaluates deviceOwnerAuthentication, NONE asks nothing, PIN and PASSWORD are not the platform's")
    func otherTypes() async throws {
        let log = FakeLALog(FakeLAScript())
        let passcode = try await log.engine().authenticate(LocalAuthRequest(localAuthType: .passcode, reason: "r"))
        #expect(passcode.domainState == nil)
        _ = try await log.engine().authenticate(LocalAuthRequest(localAuthType: .none, reason: "r"))
        #expect(log.evaluated == [.deviceOwnerAuthentication])
        await #expect(throws: LocalAuthError(.notEnrolled)) {
            try await log.engine().authenticate(LocalAuthRequest(localAuthType: .pin, reason: "r"))
        }
        let noPasscode = FakeLALog(FakeLAScript(cannotEvaluate: [.deviceOwnerAuthentication: -5]))
        await #expect(throws: LocalAuthError(.passcodeNotEnrolledDevice)) {
            try await noPasscode.engine().authenticate(LocalAuthRequest(localAuthType: .passcode, reason: "r"))
        }
    }

    @Test("the Nevis verifiers: biometric with the context's passcode fallback, device passcode, domain state")
    func nevisVerifiers() async throws {
        let log = FakeLALog(FakeLAScript(domainState: Data([9]), evaluations: [.deviceOwnerAuthenticationWithBiometrics: [-3]]))
        let biometric = LocalAuthBiometricUserVerifier(engine: log.engine(), reason: "Register Face ID")
        try await biometric.verifyBiometric(context: .init(username: "u", authenticator: .faceRecognition, allowDevicePasscodeAsFallback: true))
        #expect(log.evaluated == [.deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthentication])
        #expect(biometric.domainState == Data([9]))
        let passcode = LocalAuthDevicePasscodeUserVerifier(engine: log.engine(), reason: "Register the passcode")
        try await passcode.verifyDevicePasscode(context: .init(username: "u", authenticator: .devicePasscode))
        #expect(log.evaluated.last == .deviceOwnerAuthentication)
        let refusing = FakeLALog(FakeLAScript(evaluations: [.deviceOwnerAuthenticationWithBiometrics: [-3]]))
        await #expect(throws: LocalAuthError(.userFallback)) {
            try await LocalAuthBiometricUserVerifier(engine: refusing.engine(), reason: "r")
                .verifyBiometric(context: .init(username: "u", authenticator: .fingerprint, allowDevicePasscodeAsFallback: false))
        }
    }
}
