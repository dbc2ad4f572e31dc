import Crypto
import Synchronization

/// Parsed P-256 public keys by their stored text (X9.63, base64), so that a device's keys are
/// parsed once instead of on every signed call. The text fixes the key, so an entry can never be
/// stale and nothing needs invalidating: a revocation is a status read beside the key, not a change
/// of the key. At `capacity` entries the table is emptied and fills again.
public final class P256KeyCache: Sendable {
    /// The process's table. What it holds is the result of a pure function of its key, so every
    /// part of the process can share it.
    public static let shared = P256KeyCache()

    private let table = Mutex<[String: P256.Signing.PublicKey]>([:])
    /// How many keys are kept at most.
    public let capacity: Int

    /// A table of at most `capacity` keys.
    public init(capacity: Int = 8192) {
        self.capacity = capacity
    }

    /// The key `text` stands for; nil when it is not a P-256 public key (nothing is kept then).
    public func key(x963Base64 text: String) -> P256.Signing.PublicKey? {
        if let known = table.withLock({ $0[text] }) { return known }
        guard let key = P256.Signing.PublicKey(x963Base64: text) else { return nil }
        table.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[text] = key
        }
        return key
    }

    /// How many keys are kept now.
    public var count: Int { table.withLock { $0.count } }
}
