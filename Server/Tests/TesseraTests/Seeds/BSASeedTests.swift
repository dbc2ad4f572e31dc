import Foundation
import Synchronization
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// The BSA seed's own example code (bsa-user-registration, bsa-device-reregistration), adapted only where
/// the migration guide (Sources/Tessera/Tessera.docc/MigratingFromBSA.md) says so: `BSA.APICaller` is a
/// ``TesseraCallbacks``, `clientKey`/`bundleIdentifier` are in the configuration, enum cases are
/// lowerCamelCase, `startSimpleAuth` is given its ``LocalAuthenticator``, and each call's returned handle is
/// awaited (`.wait()`) so that the steps run in order. User registration runs in the seed's order on one device directory, then
/// device re-registration in the seed's order on a new one.
@Suite("Seeds: BSA user registration and device re-registration")
struct BSASeedTests {
    static let bundleId = "com.your.app"

    /// The seed's view controller: its `data`, its `disposeBag`, and what its callbacks did, in order.
    final class Screen: Sendable {
        struct ScreenData {
            var disposeToken: String?
            var userData: UserData?
            var existingUserData: ExistingUserData?
            var events: [String] = []
            var logs: [String] = []
        }

        let data = Mutex(ScreenData())
        let disposeBag = DisposeBag()

        func record(_ event: String) { data.withLock { $0.events.append(event) } }
        func log(_ text: String) { data.withLock { $0.logs.append(text) } }
        var events: [String] { data.withLock { $0.events } }
        var logs: [String] { data.withLock { $0.logs } }
    }

    /// A device directory of its own (the file key store an app gets by default), removed afterwards.
    static func deviceDirectory(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bsa-seed-\(name)-\(UUID().uuidString)")
    }

    @Test("user registration (i–vii) in the seed's order, then device re-registration (i–iv) in the seed's order on a new device")
    func seedOrder() async throws {
        let firstDirectory = Self.deviceDirectory("first"), newDirectory = Self.deviceDirectory("new")
        defer {
            try? FileManager.default.removeItem(at: firstDirectory)
            try? FileManager.default.removeItem(at: newDirectory)
        }
        // The sign-up code and the recovery code go to the same address within seconds.
        try await LiveServer.run(bundleId: Self.bundleId, configure: { $0.otp.resendCooldown = .zero }) { runtime, client, url in
            let configuration = TesseraClient.Configuration(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline)
            let tessera = TesseraClient(configuration: configuration, keyStore: try FileKeyStore(directory: firstDirectory))
            let api = TesseraCallbacks(client: tessera)
            let screen = Screen()
            let email = "user@email.com", phoneNumber = "+821012345678", fcmToken = "fcm-token-1"
            let enrolledFaces = Data("enrolled-faces".utf8)
            let biometrics = ScriptedLocalAuthenticator([.success(LocalAuthResult(domainState: enrolledFaces))])

            // i. Duplicated registered information: the e-mail, then the phone number.
            for (verifyData, verifyType) in [(email, VerifyType.email), (phoneNumber, .phoneNumber)] {
                await api.checkDuplicateUserData(verifyData: verifyData,
                                                 verifyType: verifyType,
                onNotDuplicateUser: { [weak screen] in
                    screen?.record("not duplicate")
                }, onDuplicateUser: { [weak screen] in
                    screen?.record("duplicate")
                }, onFailed: { [weak screen] rtCode, resultMessage in
                    screen?.record("failed \(rtCode) \(resultMessage)")
                }, onError: { [weak screen] error in
                    screen?.record("error \(error)")
                }, onTotalLog: { [weak screen] text in
                    screen?.log(text)
                }, onCompleted: { [weak screen] in
                    screen?.record("completed")
                }, disposeBag: screen.disposeBag).wait()
            }

            // ii. OTP number request.
            await api.requestSendOTPNumber(sendType: .email,
                                           sendTarget: email,
            onSuccess: { [weak screen] in
                screen?.record("otp sent")
            }, onFailed: { [weak screen] rtCode, resultMessage in
                screen?.record("failed \(rtCode) \(resultMessage)")
            }, onError: { [weak screen] error in
                screen?.record("error \(error)")
            }, onTotalLog: { [weak screen] text in
                screen?.log(text)
            }, onCompleted: { [weak screen] in
                screen?.record("completed")
            }, disposeBag: screen.disposeBag).wait()

            // iii. OTP number validation: the dispose token is kept for sign-up.
            let signUpCode = try await LiveServer.latestCode(runtime, to: email)
            await api.verifyOTPNumber(sendType: .email,
                                      sendTarget: email,
                                      otpNumber: signUpCode,
            onValidOTPNumber: { [weak screen] disposeToken in
                screen?.data.withLock { $0.disposeToken = disposeToken }
                screen?.record("otp valid")
            }, onInvalidOTPNumber: { [weak screen] in
                screen?.record("otp invalid")
            }, onFailed: { [weak screen] rtCode, resultMessage in
                screen?.record("failed \(rtCode) \(resultMessage)")
            }, onError: { [weak screen] error in
                screen?.record("error \(error)")
            }, onTotalLog: { [weak screen] text in
                screen?.log(text)
            }, onCompleted: { [weak screen] in
                screen?.record("completed")
            }, disposeBag: screen.disposeBag).wait()

            // iv. Check available ID.
            await api.checkUserKeyAvailable(userKey: "user1",
            onUserKeyAvailable: { [weak screen] in
                screen?.record("user key available")
            }, onUserKeyNotAvailable: { [weak screen] in
                screen?.record("user key not available")
            }, onFailed: { [weak screen] rtCode, resultMessage in
                screen?.record("failed \(rtCode) \(resultMessage)")
            }, onError: { [weak screen] error in
                screen?.record("error \(error)")
            }, onTotalLog: { [weak screen] text in
                screen?.log(text)
            }, onCompleted: { [weak screen] in
                screen?.record("completed")
            }, disposeBag: screen.disposeBag).wait()

            // vi. Local authentication (no domain state is saved yet, so it is not checked).
            await api.startSimpleAuth(localAuthType: .biometric,
                                      reason: "Authentication is required to verify your identity",
                                      checkDomainStateChanged: false,
                                      usePasscodeWhenFailed: false,
                                      localAuthenticator: biometrics,
            onSuccess: { [weak screen] in
                screen?.record("local auth ok")
            }, onError: { [weak screen] errorCode in
                switch errorCode {
                case .domainStateChanged: screen?.record("biometric authentication info has been changed")
                case .biometricNotAvailable, .biometricNotSupportHardware, .biometricLockOut: screen?.record("biometric authentication not available")
                case .biometricNotEnrolledDevice: screen?.record("biometric authentication info is not on device")
                case .passcodeNotEnrolledDevice: screen?.record("passcode not on device")
                case .userCancel, .userFallback: screen?.record("user cancels authentication")
                case .authFailed: screen?.record("authentication failed")
                default: screen?.record("other local auth error")
                }
            }, disposeBag: screen.disposeBag).wait()

            // vii. Sign up with every field of the seed's UserData filled.
            let disposeToken = try #require(screen.data.withLock { $0.disposeToken })
            screen.data.withLock {
                $0.userData = UserData(
                    appPackage: Self.bundleId, clientKey: client.clientKey, appVersion: "1.1.1", token: fcmToken, email: email,
                    phoneNumber: phoneNumber, userKey: "user1", name: "username1", authType: .biometric, os: .iOS,
                    disposeToken: disposeToken, agreeGccs: true, agreePerson: true, agreeDevice: true
                )
            }
            let userData = try #require(screen.data.withLock { $0.userData })
            await api.requestSignUp(userData: userData,
            onSuccess: { [weak screen] in
                screen?.record("signed up")
            }, onFailed: { [weak screen] rtCode, resultMessage in
                screen?.record("failed \(rtCode) \(resultMessage)")
            }, onError: { [weak screen] error in
                screen?.record("error \(error)")
            }, onTotalLog: { [weak screen] text in
                screen?.log(text)
            }, onCompleted: { [weak screen] in
                screen?.record("completed")
            }, disposeBag: screen.disposeBag).wait()

            #expect(screen.events == [
                "not duplicate", "completed", "not duplicate", "completed", "otp sent", "completed", "otp valid", "completed",
                "user key available", "completed", "local auth ok", "signed up", "completed",
            ])
            #expect(biometrics.requests.count == 1)  // the app's prompt only: sign-up did not prompt again
            // Every call logged its steps, and never the code or the dispose token.
            for call in ["checkDuplicateUserData", "requestSendOTPNumber", "verifyOTPNumber", "checkUserKeyAvailable", "requestSignUp"] {
                #expect(screen.logs.contains("\(call) started") && screen.logs.contains("\(call) succeeded"), "\(call): \(screen.logs)")
            }
            #expect(!screen.logs.contains { $0.contains(signUpCode) || $0.contains(disposeToken) })

            // Information saved after sign-up, read again as after a relaunch (the same device directory).
            let relaunched = TesseraClient(configuration: configuration, keyStore: try FileKeyStore(directory: firstDirectory))
            let firstDeviceID = try #require(try relaunched.loadDeviceID())
            #expect(try relaunched.loadTOTPSecretKey()?.isEmpty == false)
            #expect(try relaunched.loadFCMToken() == fcmToken)
            #expect(try relaunched.loadUserKey() == "user1")
            #expect(try relaunched.loadLocalAuthType() == .biometric)
            // The e-mail is now taken: i. answers onDuplicateUser.
            await api.checkDuplicateUserData(verifyData: email, verifyType: .email,
            onNotDuplicateUser: { [weak screen] in screen?.record("not duplicate") },
            onDuplicateUser: { [weak screen] in screen?.record("duplicate") },
            onFailed: { [weak screen] rtCode, _ in screen?.record("failed \(rtCode)") },
            onError: { [weak screen] error in screen?.record("error \(error)") }, disposeBag: screen.disposeBag).wait()
            #expect(screen.events.last == "duplicate")

            // Device re-registration, on a new device (an empty device directory).
            let newDevice = TesseraClient(configuration: configuration, keyStore: try FileKeyStore(directory: newDirectory))
            #expect(try newDevice.loadDeviceID() == nil)
            let newAPI = TesseraCallbacks(client: newDevice)
            let newScreen = Screen()
            let newFaces = Data("new-device-faces".utf8)
            let newBiometrics = ScriptedLocalAuthenticator([.success(LocalAuthResult(domainState: newFaces))])
            // The app fills what it knows; step i brings the authType, step ii the dispose token.
            newScreen.data.withLock {
                $0.existingUserData = ExistingUserData(
                    appPackage: Self.bundleId, clientKey: client.clientKey, appVersion: "1.1.1", token: "fcm-token-2", email: email,
                    phoneNumber: phoneNumber, userKey: "user1", name: "username1", authType: .none, os: .iOS, disposeToken: "", otpType: .email
                )
            }

            // i. User information verification & OTP number request.
            await newAPI.requestSendOTPNumberForRegisterDevice(
                                        userKey: "user1",
                                        name: "username1",
                                        sendType: .email,
                                        sendTarget: email,
            onSuccess: { [weak newScreen] localAuthType in
                // Local Authentication Type of Registered User (nil: a type this SDK version does not know).
                guard let localAuthType else { return }
                newScreen?.data.withLock { $0.existingUserData?.authType = localAuthType }
                newScreen?.record("otp sent, last local auth \(localAuthType.rawValue)")
            }, onFailed: { [weak newScreen] rtCode, resultMessage in
                newScreen?.record("failed \(rtCode) \(resultMessage)")
            }, onError: { [weak newScreen] error in
                newScreen?.record("error \(error)")
            }, onTotalLog: { [weak newScreen] text in
                newScreen?.log(text)
            }, onCompleted: { [weak newScreen] in
                newScreen?.record("completed")
            }, disposeBag: newScreen.disposeBag).wait()

            // ii. OTP number validation: the seed's arguments, as at sign-up.
            let recoveryCode = try await LiveServer.latestCode(runtime, to: email, count: 2)
            await newAPI.verifyOTPNumber(sendType: .email,
                                         sendTarget: email,
                                         otpNumber: recoveryCode,
            onValidOTPNumber: { [weak newScreen] disposeToken in
                newScreen?.data.withLock { $0.existingUserData?.disposeToken = disposeToken }
                newScreen?.record("otp valid")
            }, onInvalidOTPNumber: { [weak newScreen] in
                newScreen?.record("otp invalid")
            }, onFailed: { [weak newScreen] rtCode, resultMessage in
                newScreen?.record("failed \(rtCode) \(resultMessage)")
            }, onError: { [weak newScreen] error in
                newScreen?.record("error \(error)")
            }, onTotalLog: { [weak newScreen] text in
                newScreen?.log(text)
            }, onCompleted: { [weak newScreen] in
                newScreen?.record("completed")
            }, disposeBag: newScreen.disposeBag).wait()

            // iii. Local authentication with the type step i returned.
            let existing = try #require(newScreen.data.withLock { $0.existingUserData })
            await newAPI.startSimpleAuth(localAuthType: existing.authType,
                                         reason: "Authentication is required to verify your identity",
                                         checkDomainStateChanged: false,
                                         usePasscodeWhenFailed: false,
                                         localAuthenticator: newBiometrics,
            onSuccess: { [weak newScreen] in
                newScreen?.record("local auth ok")
            }, onError: { [weak newScreen] errorCode in
                newScreen?.record("local auth failed \(errorCode?.rawValue ?? "-")")
            }, disposeBag: newScreen.disposeBag).wait()

            // iv. Register new device with every field of ExistingUserData filled.
            await newAPI.requestRegisterDevice(existingUserData: existing,
            onSuccess: { [weak newScreen] in
                newScreen?.record("device registered")
            }, onFailed: { [weak newScreen] rtCode, resultMessage in
                newScreen?.record("failed \(rtCode) \(resultMessage)")
            }, onError: { [weak newScreen] error in
                newScreen?.record("error \(error)")
            }, onTotalLog: { [weak newScreen] text in
                newScreen?.log(text)
            }, onCompleted: { [weak newScreen] in
                newScreen?.record("completed")
            }, disposeBag: newScreen.disposeBag).wait()

            #expect(newScreen.events == [
                "otp sent, last local auth BIOMETRIC", "completed", "otp valid", "completed", "local auth ok", "device registered", "completed",
            ])
            #expect(newBiometrics.requests.count == 1)
            #expect(!newScreen.logs.contains { $0.contains(recoveryCode) })

            // Information saved after Register New Device: the new device's, and the old device is revoked.
            let newDeviceID = try #require(try newDevice.loadDeviceID())
            #expect(newDeviceID != firstDeviceID)
            #expect(try newDevice.loadUserKey() == "user1")
            #expect(try newDevice.loadFCMToken() == "fcm-token-2")
            #expect(try newDevice.loadLocalAuthType() == .biometric)
            #expect(try newDevice.loadTOTPSecretKey()?.isEmpty == false)
            #expect(try newDevice.keyStore.loadState()?.domainState == newFaces)
            #expect(try await newDevice.deviceInfo().userKey == "user1")
            do {
                _ = try await tessera.deviceInfo()
                Issue.record("the first device still works after the re-registration")
            } catch let error as TesseraError {
                #expect(error.code == .deviceRevoked)
            }
        }
    }

    @Test("UserData filled as the seed says, with another app's appPackage or clientKey: refused (1005) before anything is sent, the prompt not used up")
    func userDataOfAnotherApp() async throws {
        try await LiveServer.run(bundleId: Self.bundleId) { _, client, url in
            let tessera = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundleId, timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()
            )
            let api = TesseraCallbacks(client: tessera)
            let screen = Screen()
            let prompt = ScriptedLocalAuthenticator([.success(LocalAuthResult())])
            await api.startSimpleAuth(
                localAuthType: .biometric, reason: "Sign up", checkDomainStateChanged: false, usePasscodeWhenFailed: false,
                localAuthenticator: prompt, onSuccess: { [weak screen] in screen?.record("local auth ok") },
                onError: { [weak screen] in screen?.record("local auth failed \($0?.rawValue ?? "-")") }, disposeBag: screen.disposeBag
            ).wait()
            // Another app's values, then this app's: the first two never reach the server; the third does and,
            // its dispose token being made up, is refused there (2101), not locally for want of a prompt (9103).
            for (appPackage, clientKey) in [("com.other.app", client.clientKey), (Self.bundleId, "tck_other"), (Self.bundleId, client.clientKey)] {
                let userData = UserData(
                    appPackage: appPackage, clientKey: clientKey, appVersion: "1.1.1", token: "", email: "user@email.com",
                    phoneNumber: "+821012345678", userKey: "user1", name: "username1", authType: .biometric, os: .iOS, disposeToken: "made-up",
                    agreeGccs: true, agreePerson: true, agreeDevice: true
                )
                await api.requestSignUp(
                    userData: userData, onSuccess: { [weak screen] in screen?.record("signed up") },
                    onFailed: { [weak screen] rtCode, _ in screen?.record("failed \(rtCode)") }, onError: { [weak screen] _ in screen?.record("error") }, disposeBag: screen.disposeBag
                ).wait()
            }
            let invalid = "failed \(ErrorCode.fieldInvalid.rawValue)"
            #expect(screen.events == ["local auth ok", invalid, invalid, "failed \(ErrorCode.disposeTokenInvalid.rawValue)"])
        }
    }
}
