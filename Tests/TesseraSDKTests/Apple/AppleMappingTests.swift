import Foundation
import Testing
@testable import Tessera

/// Every `LAError` code and `OSStatus` the Apple adapters can meet, mapped to the seeds' codes; the
/// tables here are written from Apple's headers and the seeds, apart from the code under test.
@Suite("Apple error and access-control mapping")
struct AppleMappingTests {
    /// (raw value from LAPublicDefines.h, seed code with a biometric sensor, seed code without one)
    static let laErrors: [(Int, LocalAuthErrorCode, LocalAuthErrorCode)] = [
        (-1, .authFailed, .authFailed),                                        // authenticationFailed
        (-2, .userCancel, .userCancel),                                        // userCancel
        (-3, .userFallback, .userFallback),                                    // userFallback
        (-4, .userCancel, .userCancel),                                        // systemCancel
        (-5, .passcodeNotEnrolledDevice, .passcodeNotEnrolledDevice),          // passcodeNotSet
        (-6, .biometricNotAvailable, .biometricNotSupportHardware),            // biometryNotAvailable, touchIDNotAvailable
        (-7, .biometricNotEnrolledDevice, .biometricNotEnrolledDevice),        // biometryNotEnrolled, touchIDNotEnrolled
        (-8, .biometricLockOut, .biometricLockOut),                            // biometryLockout, touchIDLockout
        (-9, .userCancel, .userCancel),                                        // appCancel
        (-10, .authFailed, .authFailed),                                       // invalidContext
        (-11, .biometricNotAvailable, .biometricNotAvailable),                 // companionNotAvailable, watchNotAvailable
        (-12, .biometricNotAvailable, .biometricNotAvailable),                 // biometryNotPaired
        (-13, .biometricNotAvailable, .biometricNotAvailable),                 // biometryDisconnected
        (-14, .authFailed, .authFailed),                                       // invalidDimensions
        (-1004, .biometricNotAvailable, .biometricNotAvailable),               // notInteractive
        (-99, .authFailed, .authFailed),                                       // a code Apple may add later
    ]

    @Test("each LAError code maps to the seed's code", arguments: laErrors)
    func laError(_ row: (Int, LocalAuthErrorCode, LocalAuthErrorCode)) {
        #expect(LocalAuthenticationErrorCode.seedCode(forRawValue: row.0, hasBiometricHardware: true) == row.1)
        #expect(LocalAuthenticationErrorCode.seedCode(forRawValue: row.0, hasBiometricHardware: false) == row.2)
    }

    @Test("the LAError cases are exactly the codes of LAPublicDefines.h, the deprecated names are aliases")
    func laErrorRawValues() {
        #expect(Set(LocalAuthenticationErrorCode.allCases.map(\.rawValue)) == Set(Self.laErrors.map(\.0)).subtracting([-99]))
        #expect(LocalAuthenticationErrorCode.touchIDNotAvailable.rawValue == -6)
        #expect(LocalAuthenticationErrorCode.touchIDNotEnrolled.rawValue == -7)
        #expect(LocalAuthenticationErrorCode.touchIDLockout.rawValue == -8)
        #expect(LocalAuthenticationErrorCode.watchNotAvailable.rawValue == -11)
        #expect(LocalAuthenticationErrorCode.notInteractive.rawValue == -1004)
    }

    @Test("the passcode may stand in after a biometric failure, never after a cancellation or without a passcode")
    func fallbackCodes() {
        let falling = LocalAuthenticationErrorCode.allCases.filter(\.allowsPasscodeFallback).map(\.rawValue).sorted()
        #expect(falling == [-13, -12, -11, -8, -7, -6, -3, -1])
    }

    /// (OSStatus, FIDO code): SecBase.h and MacErrors.h values.
    static let statuses: [(Int32, FidoErrorCode?)] = [
        (0, nil),                                  // errSecSuccess
        (-25300, .noSuitableAuthenticator),        // errSecItemNotFound
        (-25299, .unknown),                        // errSecDuplicateItem (a write updates instead)
        (-25308, .authenticatorAccessDenied),      // errSecInteractionNotAllowed (device locked)
        (-25293, .authenticatorAccessDenied),      // errSecAuthFailed
        (-128, .userCancelled),                    // errSecUserCanceled
        (-50, .unknown),                           // errSecParam
        (-34018, .unknown),                        // errSecMissingEntitlement
        (-25291, .noSuitableAuthenticator),        // errSecNotAvailable
        (-26275, .unknown),                        // errSecDecode
        (-108, .unknown),                          // errSecAllocate
        (-4, .unknown),                            // errSecUnimplemented
        (-1, .unknown),                            // a status the SDK does not know
    ]

    @Test("each OSStatus maps to its FIDO code, and a failed Keychain call to an operation error", arguments: statuses)
    func osStatus(_ row: (Int32, FidoErrorCode?)) {
        #expect(KeychainStatus.fidoErrorCode(forRawValue: row.0) == row.1)
        guard let code = row.1 else { return }
        let error = KeychainError(operation: "SecItemCopyMatching", status: row.0)
        #expect(error.fidoErrorCode == code)
        #expect(OperationError(error) == (code == .userCancelled ? .userCanceled : .fido(code)))
    }

    @Test("the KeychainStatus cases are exactly the table's statuses")
    func statusRawValues() {
        #expect(Set(KeychainStatus.allCases.map(\.rawValue)) == Set(Self.statuses.map(\.0)).subtracting([-1]))
    }

    /// (type, invalidate on new biometrics, passcode fallback, raw flags of a Secure Enclave key, of a software key)
    static let flags: [(LocalAuthType, Bool, Bool, UInt, UInt)] = [
        (.biometric, true, false, 1 << 3 | 1 << 30, 1 << 3),   // .biometryCurrentSet
        (.biometric, false, false, 1 << 1 | 1 << 30, 1 << 1),  // .biometryAny
        (.biometric, true, true, 1 << 0 | 1 << 30, 1 << 0),    // .userPresence
        (.biometric, false, true, 1 << 0 | 1 << 30, 1 << 0),
        (.passcode, true, false, 1 << 0 | 1 << 30, 1 << 0),
        (.passcode, false, true, 1 << 0 | 1 << 30, 1 << 0),
        (.pin, true, false, 1 << 30, 0),
        (.password, false, true, 1 << 30, 0),
        (.none, true, false, 1 << 30, 0),
    ]

    @Test("each local-auth type gets its access-control flags (SecAccessControlCreateFlags raw values)", arguments: flags)
    func accessControl(_ row: (LocalAuthType, Bool, Bool, UInt, UInt)) {
        let enclave = AccessControlFlags.userVerificationKey(
            localAuthType: row.0, invalidateOnNewOsBiometrics: row.1, passcodeFallback: row.2, secureEnclave: true
        )
        let software = AccessControlFlags.userVerificationKey(
            localAuthType: row.0, invalidateOnNewOsBiometrics: row.1, passcodeFallback: row.2, secureEnclave: false
        )
        #expect(enclave.rawValue == row.3)
        #expect(software.rawValue == row.4)
    }

    @Test("the device key needs no user, only .privateKeyUsage in the Secure Enclave; every type is in the table")
    func deviceKey() {
        #expect(AccessControlFlags.deviceKey(secureEnclave: true).rawValue == 1 << 30)
        #expect(AccessControlFlags.deviceKey(secureEnclave: false).isEmpty)
        #expect(Set(Self.flags.map(\.0)) == Set(LocalAuthType.allCases))
        #expect(AccessControlFlags.devicePasscode.rawValue == 1 << 4)
    }

    @Test("the SDK picks the Secure Enclave where there is one, else the Keychain")
    func automaticKind() {
        #expect(KeyStoreKind.automatic(secureEnclaveAvailable: true) == .secureEnclave)
        #expect(KeyStoreKind.automatic(secureEnclaveAvailable: false) == .keychain)
    }

    @Test("server-sent-event lines: LF and CRLF end a line, empty lines are kept")
    func lineSplitter() {
        var splitter = LineSplitter()
        let lines = Array("data: a\n\ndata: b\r\n\r\nrest".utf8).compactMap { splitter.feed($0) }
        #expect(lines == ["data: a", "", "data: b", ""])
    }
}
