import Foundation

/// Generic-password Keychain items of one service, in plain Swift over the ``KeychainCalls`` seam:
/// every item is `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` and not synchronised (never in iCloud
/// Keychain, never in a backup restored to another device). A write that finds the item updates it.
public struct KeychainItems: Sendable {
    /// The `kSecAttrService` of the items.
    public let service: String
    /// Whether queries ask for the data-protection keychain (`kSecUseDataProtectionKeychain`, needed on macOS
    /// for device-only items; iOS has no other).
    public let useDataProtectionKeychain: Bool
    private let calls: any KeychainCalls

    /// Creates the items of `service` over `calls`.
    public init(service: String, useDataProtectionKeychain: Bool = true, calls: any KeychainCalls) {
        self.service = service
        self.useDataProtectionKeychain = useDataProtectionKeychain
        self.calls = calls
    }

    /// The query that finds the item `account`.
    public func query(account: String) -> KeychainQuery {
        var query: KeychainQuery = [.itemClass: .genericPasswordClass, .service: .string(service), .account: .string(account)]
        if useDataProtectionKeychain { query[.useDataProtectionKeychain] = .bool(true) }
        return query
    }

    /// The attributes of a new item `account` holding `data`.
    public func addAttributes(account: String, data: Data) -> KeychainQuery {
        query(account: account).merging(
            [.valueData: .data(data), .accessible: .accessibleWhenUnlockedThisDeviceOnly, .synchronizable: .bool(false)]
        ) { $1 }
    }

    /// Writes `data` as the item `account`: adds it, or updates it when it exists.
    /// - Throws: ``KeychainError`` (`errSecInteractionNotAllowed` while the device is locked, …).
    public func write(_ data: Data, account: String) throws {
        var status = calls.add(addAttributes(account: account, data: data))
        if status == KeychainStatus.duplicateItem.rawValue {
            status = calls.update(query(account: account), [.valueData: .data(data), .accessible: .accessibleWhenUnlockedThisDeviceOnly])
            try check(status, "SecItemUpdate")
        } else {
            try check(status, "SecItemAdd")
        }
    }

    /// The data of the item `account`, nil when there is none.
    /// - Throws: ``KeychainError`` for any other failure.
    public func read(account: String) throws -> Data? {
        var query = query(account: account)
        query[.returnData] = .bool(true)
        query[.matchLimit] = .matchLimitOne
        let (status, data) = calls.copyMatching(query)
        if status == KeychainStatus.itemNotFound.rawValue { return nil }
        try check(status, "SecItemCopyMatching")
        guard let data else { throw KeychainError(operation: "SecItemCopyMatching", status: KeychainStatus.decode.rawValue) }
        return data
    }

    /// Deletes the item `account` (nothing happens when there is none).
    public func delete(account: String) throws {
        let status = calls.delete(query(account: account))
        if status == KeychainStatus.itemNotFound.rawValue { return }
        try check(status, "SecItemDelete")
    }

    private func check(_ status: Int32, _ operation: String) throws {
        guard status == KeychainStatus.success.rawValue else { throw KeychainError(operation: operation, status: status) }
    }
}
