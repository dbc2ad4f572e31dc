#if canImport(Security) && canImport(LocalAuthentication) && canImport(CryptoKit)
import CryptoKit
#if canImport(DeviceCheck)
import DeviceCheck
#endif
import Foundation
import LocalAuthentication
import Security
import Testing
@testable import Tessera

/// Apple-only tests: they run in the macOS workflow (`swift test` on macOS, `xcodebuild test` on the iOS
/// Simulator), never on Linux. They check our transcribed constants against Apple's, and the real
/// Keychain and Secure Enclave.
@Suite("Apple platform")
struct ApplePlatformTests {
    /// Which Keychain this process may use: the data-protection keychain needs an entitlement that an
    /// unsigned `swift test` on macOS lacks (errSecMissingEntitlement); the file keychain then serves.
    static let usableKeychain: KeychainItems? = {
        for dataProtection in [true, false] {
            let items = KeychainItems(service: "tessera.tests.probe", useDataProtectionKeychain: dataProtection, calls: AppleKeychain())
            if (try? items.write(Data([1]), account: "probe")) != nil {
                try? items.delete(account: "probe")
                return KeychainItems(service: "tessera.tests.\(UUID().uuidString)", useDataProtectionKeychain: dataProtection, calls: AppleKeychain())
            }
        }
        return nil
    }()

    @Test("our Keychain attribute and value strings are Apple's constants")
    func keychainConstants() {
        for attribute in KeychainAttribute.allCases { #expect(AppleKeychain.constant(attribute) == attribute.rawValue) }
        #expect(AppleKeychain.constant(.genericPasswordClass) as? String == "genp")
        #expect(AppleKeychain.constant(.accessibleWhenUnlockedThisDeviceOnly) as? String == "aku")
        #expect(AppleKeychain.constant(.matchLimitOne) as? String == "m_LimitOne")
    }

    @Test("our LAError, LAPolicy, LABiometryType and access-control raw values are Apple's")
    func localAuthenticationRawValues() {
        let codes: [(LAError.Code, LocalAuthenticationErrorCode)] = [
            (.authenticationFailed, .authenticationFailed), (.userCancel, .userCancel), (.userFallback, .userFallback),
            (.systemCancel, .systemCancel), (.passcodeNotSet, .passcodeNotSet), (.biometryNotAvailable, .biometryNotAvailable),
            (.biometryNotEnrolled, .biometryNotEnrolled), (.biometryLockout, .biometryLockout), (.appCancel, .appCancel),
            (.invalidContext, .invalidContext), (.companionNotAvailable, .companionNotAvailable),
            (.biometryNotPaired, .biometryNotPaired), (.biometryDisconnected, .biometryDisconnected),
            (.invalidDimensions, .invalidDimensions), (.notInteractive, .notInteractive),
        ]
        for (apple, ours) in codes { #expect(apple.rawValue == ours.rawValue, "\(ours)") }
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == LocalAuthenticationPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue)
        #expect(LAPolicy.deviceOwnerAuthentication.rawValue == LocalAuthenticationPolicy.deviceOwnerAuthentication.rawValue)
        #expect(LABiometryType.faceID.rawValue == BiometryKind.faceID.rawValue)
        #expect(LABiometryType.touchID.rawValue == BiometryKind.touchID.rawValue)
        #expect(LABiometryType.opticID.rawValue == BiometryKind.opticID.rawValue)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == AccessControlFlags.biometryCurrentSet.rawValue)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == AccessControlFlags.biometryAny.rawValue)
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == AccessControlFlags.userPresence.rawValue)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == AccessControlFlags.devicePasscode.rawValue)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == AccessControlFlags.privateKeyUsage.rawValue)
    }

    @Test("Keychain round trip: absent, add, update, read, delete; the Keychain store signs and keeps state",
          .enabled(if: usableKeychain != nil, "this test process may use no keychain"))
    func keychainRoundTrip() throws {
        let items = try #require(Self.usableKeychain)
        defer { for account in ["a", "device-key", "user-verification-key", "device-state"] { try? items.delete(account: account) } }
        #expect(try items.read(account: "a") == nil)
        try items.write(Data([1]), account: "a")
        try items.write(Data([2]), account: "a")
        #expect(try items.read(account: "a") == Data([2]))
        try items.delete(account: "a")
        #expect(try items.read(account: "a") == nil)
        let store = KeychainKeyStore(items: items, keys: SoftwareSigningKeys())
        let keys = try store.generateKeys(unlockSecret: nil, localAuthType: .biometric)
        let message = Data("challenge".utf8)
        #expect(keys.device.isValidSignature(try store.signWithDeviceKey(message), for: message))
        let state = DeviceState(deviceId: "d", userKey: "u", totpSecret: "JBSWY3DPEHPK3PXP", pushToken: "p", localAuthType: .biometric)
        try store.saveState(state)
        #expect(try store.loadState() == state)
    }

    @Test("a Secure Enclave device key signs, and its blob is usable again",
          .enabled(if: SecureEnclave.isAvailable, "no Secure Enclave here (the Simulator and most CI runners have none)"))
    func secureEnclaveKey() throws {
        let keys = SecureEnclaveSigningKeys()
        let blob = try keys.makeKey(accessControl: .deviceKey(secureEnclave: true))
        let message = Data("challenge".utf8)
        #expect(try keys.publicKey(blob: blob).isValidSignature(try keys.signature(for: message, blob: blob), for: message))
    }

    @Test("the SDK reports the store it picked")
    func automatic() {
        let configuration = TesseraClient.Configuration(serverURL: URL(string: "https://id.example.com")!, clientKey: "k", bundleIdentifier: "b")
        let client = TesseraClient(configuration: configuration, keyStore: AppleKeyStore.automatic(for: configuration))
        #expect(client.keyStoreKind == (SecureEnclave.isAvailable ? .secureEnclave : .keychain))
    }

    #if canImport(DeviceCheck)
    @Test("our DCError codes and domain are Apple's; the adapter maps invalidKey to 7404")
    func deviceCheckRawValues() {
        let codes: [(DCError.Code, AppAttestErrorCode)] = [
            (.unknownSystemFailure, .unknownSystemFailure), (.featureUnsupported, .featureUnsupported), (.invalidInput, .invalidInput),
            (.invalidKey, .invalidKey), (.serverUnavailable, .serverUnavailable),
        ]
        for (apple, ours) in codes { #expect(apple.rawValue == ours.rawValue) }
        #expect(DCErrorDomain == AppAttestErrorCode.domain)
        let invalidKey = NSError(domain: DCErrorDomain, code: DCError.Code.invalidKey.rawValue)
        #expect(AppleAppAttestProvider.failure(invalidKey, step: "generateAssertion").code == .appAttestDeviceNotAttested)
    }
    #endif
}
#endif
