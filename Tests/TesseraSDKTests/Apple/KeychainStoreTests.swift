import Crypto
import Foundation
import Testing
import Tessera

/// The Keychain logic of the Apple key stores over a fake `SecItem…`: the query dictionaries, the
/// absent / duplicate / interaction-not-allowed paths, and the store on top.
@Suite("Apple Keychain logic")
struct KeychainStoreTests {
    @Test("items are generic passwords of the service and account, this device only, never synchronised")
    func queries() throws {
        let keychain = FakeKeychain()
        let items = KeychainItems(service: "tessera.test", calls: keychain)
        try items.write(Data([1]), account: "a")
        let added = try #require(keychain.calls.first)
        #expect(added.0 == "add")
        #expect(added.1 == [
            .itemClass: .genericPasswordClass, .service: .string("tessera.test"), .account: .string("a"),
            .useDataProtectionKeychain: .bool(true), .valueData: .data(Data([1])),
            .accessible: .accessibleWhenUnlockedThisDeviceOnly, .synchronizable: .bool(false),
        ])
        _ = try items.read(account: "a")
        #expect(keychain.calls.last?.1[.returnData] == .bool(true))
        #expect(keychain.calls.last?.1[.matchLimit] == .matchLimitOne)
        let legacy = KeychainItems(service: "s", useDataProtectionKeychain: false, calls: keychain)
        #expect(legacy.query(account: "a")[.useDataProtectionKeychain] == nil)
        #expect(KeychainAttribute.allCases.map(\.rawValue) == ["class", "svce", "acct", "pdmn", "sync", "nleg", "v_Data", "r_Data", "m_Limit"])
    }

    @Test("an absent item reads as nil and deletes quietly; a second write updates the existing item")
    func absentAndDuplicate() throws {
        let keychain = FakeKeychain()
        let items = KeychainItems(service: "s", calls: keychain)
        #expect(try items.read(account: "a") == nil)
        try items.delete(account: "a")
        try items.write(Data([1]), account: "a")
        try items.write(Data([2]), account: "a")
        #expect(keychain.calls.map(\.0) == ["copyMatching", "delete", "add", "add", "update"])
        #expect(keychain.calls.last?.1[.accessible] == .accessibleWhenUnlockedThisDeviceOnly)
        #expect(try items.read(account: "a") == Data([2]))
        try items.delete(account: "a")
        #expect(try items.read(account: "a") == nil)
    }

    @Test("interaction not allowed (device locked) fails read, add, update and delete with the status and AUTHENTICATOR_ACCESS_DENIED")
    func interactionNotAllowed() throws {
        let keychain = FakeKeychain()
        let items = KeychainItems(service: "s", calls: keychain)
        let locked = KeychainError(operation: "SecItemCopyMatching", status: -25308)
        keychain.fail("copyMatching", with: .interactionNotAllowed)
        #expect(throws: locked) { try items.read(account: "a") }
        #expect(locked.fidoErrorCode == .authenticatorAccessDenied)
        #expect(OperationError(locked) == .fido(.authenticatorAccessDenied))
        keychain.fail("add", with: .interactionNotAllowed)
        #expect(throws: KeychainError(operation: "SecItemAdd", status: -25308)) { try items.write(Data([1]), account: "a") }
        try items.write(Data([1]), account: "a")
        keychain.fail("update", with: .interactionNotAllowed)  // the add finds the item, the update is refused
        #expect(throws: KeychainError(operation: "SecItemUpdate", status: -25308)) { try items.write(Data([2]), account: "a") }
        #expect(try items.read(account: "a") == Data([1]))
        keychain.fail("delete", with: .interactionNotAllowed)
        #expect(throws: KeychainError(operation: "SecItemDelete", status: -25308)) { try items.delete(account: "a") }
    }

    @Test("the store: keys whose access control fits the sign-up's local-auth type, signatures that verify, state and session as items")
    func store() throws {
        let keychain = FakeKeychain()
        let keys = RecordingSigningKeys()
        let store = KeychainDeviceKeyStore(items: KeychainItems(service: "s", calls: keychain), keys: keys)
        #expect(try store.deviceKeyPublic() == nil)
        #expect(throws: KeyStoreError.noKeys) { try store.signWithDeviceKey(Data()) }
        let generated = try store.generateKeys(unlockSecret: nil, localAuthType: .biometric)
        #expect(keys.made.withLock { $0 } == [.privateKeyUsage, [.biometryCurrentSet, .privateKeyUsage]])
        #expect(try store.deviceKeyPublic()?.rawRepresentation == generated.device.rawRepresentation)
        let message = Data("challenge".utf8)
        #expect(generated.device.isValidSignature(try store.signWithDeviceKey(message), for: message))
        #expect(generated.userVerification.isValidSignature(try store.signWithUserVerificationKey(message, unlockSecret: nil), for: message))
        let state = DeviceState(deviceId: "d", userKey: "u", totpSecret: "JBSWY3DPEHPK3PXP", pushToken: "p", localAuthType: .biometric, domainState: Data([1]))
        try store.saveState(state)
        #expect(try store.loadState() == state)
        let accounts = Set(keychain.state.withLock { $0.items.keys.compactMap { query -> String? in
            if case .string(let account)? = query[.account] { return account } else { return nil }
        } })
        #expect(accounts == ["device-key", "user-verification-key", "device-state"])
        let client = TesseraClient(configuration: .init(serverURL: URL(string: "https://id.example.com")!, clientKey: "k", bundleIdentifier: "b"), keyStore: store, transport: OfflineTransport())
        #expect(client.keyStoreKind == .secureEnclave)
    }

    @Test("PIN and PASSWORD: the user-verification key is sealed under the secret; the wrong one is refused")
    func sealedUnderSecret() throws {
        let keys = RecordingSigningKeys()
        let store = KeychainDeviceKeyStore(items: KeychainItems(service: "s", calls: FakeKeychain()), keys: keys)
        let generated = try store.generateKeys(unlockSecret: "123456", localAuthType: .pin)
        #expect(keys.made.withLock { $0 }.last == .privateKeyUsage)
        let message = Data("m".utf8)
        #expect(generated.userVerification.isValidSignature(try store.signWithUserVerificationKey(message, unlockSecret: "123456"), for: message))
        #expect(throws: KeyStoreError.locked) { try store.signWithUserVerificationKey(message, unlockSecret: "000000") }
        // Without a local-auth type the store takes PIN with a secret, PASSCODE (.userPresence) without.
        _ = try store.generateKeys(unlockSecret: nil)
        #expect(keys.made.withLock { $0 }.last == [.userPresence, .privateKeyUsage])
    }

    @Test("the software Keychain store is reported as keychain, the SDK's others by kind")
    func kinds() throws {
        let configuration = TesseraClient.Configuration(serverURL: URL(string: "https://id.example.com")!, clientKey: "k", bundleIdentifier: "b")
        let software = KeychainDeviceKeyStore(items: KeychainItems(service: "s", calls: FakeKeychain()), keys: SoftwareSigningKeys())
        #expect(TesseraClient(configuration: configuration, keyStore: software, transport: OfflineTransport()).keyStoreKind == .keychain)
        #expect(TesseraClient(configuration: configuration, keyStore: MemoryKeyStore(), transport: OfflineTransport()).keyStoreKind == .memory)
        let generated = try software.generateKeys(unlockSecret: nil, localAuthType: .biometric)
        let message = Data("m".utf8)
        #expect(generated.userVerification.isValidSignature(try software.signWithUserVerificationKey(message, unlockSecret: nil), for: message))
    }
}
