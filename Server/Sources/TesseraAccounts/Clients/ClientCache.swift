import Foundation
import Synchronization

/// A small time-bounded cache of client lookups (hits and misses), so app calls do not read the
/// clients table on every request.
package final class ClientCache: Sendable {
    package typealias Entry = (client: Client, secretHash: String)?

    private let entries = Mutex<[String: (entry: Entry, expiresAt: Int64)]>([:])
    private let ttlMillis: Int64
    private let capacity = 10_000

    package init(ttlMillis: Int64) { self.ttlMillis = ttlMillis }

    /// What the cache knows about a key.
    package enum Lookup {
        /// Nothing fresh is cached: ask the database.
        case unknown
        /// A fresh answer, which may be "no such client".
        case cached(Entry)
    }

    package func lookup(_ key: String, now: Int64) -> Lookup {
        entries.withLock { entries in
            guard let cached = entries[key], cached.expiresAt > now else { return .unknown }
            return .cached(cached.entry)
        }
    }

    package func store(_ key: String, _ entry: Entry, now: Int64) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (entry, now + ttlMillis)
        }
    }

    package func remove(_ key: String) {
        entries.withLock { _ = $0.removeValue(forKey: key) }
    }
}
