#if canImport(CryptoKit) && canImport(Security) && canImport(LocalAuthentication)
import CryptoKit
import Foundation
import LocalAuthentication

/// Device keys in the Secure Enclave; key blobs, device state and session in the Keychain.
public typealias SecureEnclaveKeyStore = KeychainDeviceKeyStore<SecureEnclaveSigningKeys>

/// Software P-256 keys, device state and session in the Keychain: where no Secure Enclave exists.
public typealias KeychainKeyStore = KeychainDeviceKeyStore<SoftwareSigningKeys>

/// The key stores of Apple platforms, chosen automatically.
public enum AppleKeyStore {
    /// The Keychain service of a client's items: one per server, client key and bundle identifier
    /// (the name of its ``FileKeyStore/standardDirectory(for:environment:)``).
    public static func service(for configuration: TesseraClient.Configuration) -> String {
        "tessera." + FileKeyStore.standardDirectory(for: configuration).lastPathComponent
    }

    /// A ``SecureEnclaveKeyStore`` where the device has a Secure Enclave, else a ``KeychainKeyStore``
    /// (``KeyStoreKind/automatic(secureEnclaveAvailable:)``); ``TesseraClient/keyStoreKind`` tells which.
    /// - Parameters:
    ///   - configuration: The client's configuration (names the Keychain service).
    ///   - invalidateOnNewOsBiometrics: Bind a biometric user-verification key to the biometry enrolled now.
    ///   - passcodeFallback: Let the device passcode unlock a biometric user-verification key.
    public static func automatic(
        for configuration: TesseraClient.Configuration, invalidateOnNewOsBiometrics: Bool = true, passcodeFallback: Bool = false
    ) -> any DeviceKeyStore {
        let items = KeychainItems(service: service(for: configuration), calls: AppleKeychain())
        switch KeyStoreKind.automatic(secureEnclaveAvailable: SecureEnclave.isAvailable) {
        case .secureEnclave:
            return SecureEnclaveKeyStore(
                items: items, keys: SecureEnclaveSigningKeys(), invalidateOnNewOsBiometrics: invalidateOnNewOsBiometrics,
                passcodeFallback: passcodeFallback
            )
        default:
            return KeychainKeyStore(
                items: items, keys: SoftwareSigningKeys(), invalidateOnNewOsBiometrics: invalidateOnNewOsBiometrics,
                passcodeFallback: passcodeFallback
            )
        }
    }
}
#endif
