import Foundation

/// The Keychain attribute keys the SDK uses. The raw values are the strings Apple's constants hold
/// (`kSecClass as String == "class"`, …); the Apple adapter passes Apple's constants themselves, and
/// an Apple-only test checks that both agree.
public enum KeychainAttribute: String, Sendable, CaseIterable {
    /// `kSecClass`.
    case itemClass = "class"
    /// `kSecAttrService`.
    case service = "svce"
    /// `kSecAttrAccount`.
    case account = "acct"
    /// `kSecAttrAccessible`.
    case accessible = "pdmn"
    /// `kSecAttrSynchronizable`.
    case synchronizable = "sync"
    /// `kSecUseDataProtectionKeychain`.
    case useDataProtectionKeychain = "nleg"
    /// `kSecValueData`.
    case valueData = "v_Data"
    /// `kSecReturnData`.
    case returnData = "r_Data"
    /// `kSecMatchLimit`.
    case matchLimit = "m_Limit"
}

/// A value in a Keychain query: plain values, or one of Apple's constants by name.
public enum KeychainValue: Sendable, Hashable {
    /// A string (`CFString`).
    case string(String)
    /// Bytes (`CFData`).
    case data(Data)
    /// A boolean (`CFBoolean`).
    case bool(Bool)
    /// `kSecClassGenericPassword` (raw value `"genp"`).
    case genericPasswordClass
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` (raw value `"aku"`).
    case accessibleWhenUnlockedThisDeviceOnly
    /// `kSecMatchLimitOne` (raw value `"m_LimitOne"`).
    case matchLimitOne
}

/// A Keychain query or attribute dictionary, typed (the Apple adapter turns it into a `CFDictionary`).
public typealias KeychainQuery = [KeychainAttribute: KeychainValue]

/// The seam over Apple's `SecItem…` functions: each takes typed dictionaries and returns the `OSStatus`.
/// `AppleKeychain` calls the real ones; tests use a fake.
public protocol KeychainCalls: Sendable {
    /// `SecItemAdd(attributes, nil)`.
    func add(_ attributes: KeychainQuery) -> Int32
    /// `SecItemCopyMatching(query, &result)` for one item's data.
    func copyMatching(_ query: KeychainQuery) -> (status: Int32, data: Data?)
    /// `SecItemUpdate(query, changes)`.
    func update(_ query: KeychainQuery, _ changes: KeychainQuery) -> Int32
    /// `SecItemDelete(query)`.
    func delete(_ query: KeychainQuery) -> Int32
}
