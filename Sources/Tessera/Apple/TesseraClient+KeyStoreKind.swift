/// A key store that says which kind it is.
protocol KeyStoreKindReporting {
    var kind: KeyStoreKind { get }
}

extension KeychainDeviceKeyStore: KeyStoreKindReporting {}

extension KeyStoreKind {
    /// The store the SDK picks on Apple platforms: the Secure Enclave where the device has one, else
    /// software keys in the Keychain (the Simulator, Macs without a T2 or Apple silicon).
    public static func automatic(secureEnclaveAvailable: Bool) -> KeyStoreKind {
        secureEnclaveAvailable ? .secureEnclave : .keychain
    }
}

extension TesseraClient {
    /// Which key store this client uses: ``KeyStoreKind/secureEnclave`` or ``KeyStoreKind/keychain`` for the
    /// Apple stores, ``KeyStoreKind/file``, ``KeyStoreKind/memory``, or ``KeyStoreKind/custom`` for an app's own.
    public var keyStoreKind: KeyStoreKind {
        switch keyStore {
        case let reporting as any KeyStoreKindReporting: reporting.kind
        case is FileKeyStore: .file
        case is MemoryKeyStore: .memory
        default: .custom
        }
    }
}
