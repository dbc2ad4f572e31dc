#if canImport(Security)
import Foundation
import Security

/// The ``KeychainCalls`` seam over Apple's `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` and
/// `SecItemDelete`: it only turns the typed queries into dictionaries of Apple's constants.
public struct AppleKeychain: KeychainCalls {
    /// Creates the seam.
    public init() {}

    /// Apple's constant for `attribute`.
    public static func constant(_ attribute: KeychainAttribute) -> String {
        switch attribute {
        case .itemClass: kSecClass as String
        case .service: kSecAttrService as String
        case .account: kSecAttrAccount as String
        case .accessible: kSecAttrAccessible as String
        case .synchronizable: kSecAttrSynchronizable as String
        case .useDataProtectionKeychain: kSecUseDataProtectionKeychain as String
        case .valueData: kSecValueData as String
        case .returnData: kSecReturnData as String
        case .matchLimit: kSecMatchLimit as String
        }
    }

    /// Apple's value for `value`.
    public static func constant(_ value: KeychainValue) -> Any {
        switch value {
        case .string(let string): string
        case .data(let data): data
        case .bool(let bool): bool
        case .genericPasswordClass: kSecClassGenericPassword as String
        case .accessibleWhenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String
        case .matchLimitOne: kSecMatchLimitOne as String
        }
    }

    static func dictionary(_ query: KeychainQuery) -> CFDictionary {
        var dictionary: [String: Any] = [:]
        for (attribute, value) in query { dictionary[constant(attribute)] = constant(value) }
        return dictionary as CFDictionary
    }

    /// `SecItemAdd`.
    public func add(_ attributes: KeychainQuery) -> Int32 { SecItemAdd(Self.dictionary(attributes), nil) }

    /// `SecItemCopyMatching`, the result read as `Data`.
    public func copyMatching(_ query: KeychainQuery) -> (status: Int32, data: Data?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(Self.dictionary(query), &result)
        return (status, result as? Data)
    }

    /// `SecItemUpdate`.
    public func update(_ query: KeychainQuery, _ changes: KeychainQuery) -> Int32 {
        SecItemUpdate(Self.dictionary(query), Self.dictionary(changes))
    }

    /// `SecItemDelete`.
    public func delete(_ query: KeychainQuery) -> Int32 { SecItemDelete(Self.dictionary(query)) }
}
#endif
