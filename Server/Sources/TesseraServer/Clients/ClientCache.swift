import Foundation

/// A small time-bounded cache of client lookups (hits and misses), so app calls do not read the
/// clients table on every request.
final class ClientCache: @unchecked Sendable {
    typealias Entry = (client: Client, secretHash: String)?

    private let lock = NSLock()
    private var entries: [String: (entry: Entry, expiresAt: Int64)] = [:]
    private let ttlMillis: Int64
    private let capacity = 10_000

    init(ttlMillis: Int64) { self.ttlMillis = ttlMillis }

    /// What the cache knows about a key.
    enum Lookup {
        /// Nothing fresh is cached: ask the database.
        case unknown
        /// A fresh answer, which may be "no such client".
        case cached(Entry)
    }

    func lookup(_ key: String, now: Int64) -> Lookup {
        lock.withLock {
            guard let cached = entries[key], cached.expiresAt > now else { return .unknown }
            return .cached(cached.entry)
        }
    }

    func store(_ key: String, _ entry: Entry, now: Int64) {
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (entry, now + ttlMillis)
        }
    }

    func remove(_ key: String) {
        lock.withLock { _ = entries.removeValue(forKey: key) }
    }
}
