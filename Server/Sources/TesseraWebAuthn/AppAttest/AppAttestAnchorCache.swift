import Foundation
import Synchronization
import X509

/// The intermediate certificates that App Attest chains were already validated through to a trusted root, kept so
/// that later attestations through the same intermediate (Apple's "Apple App Attestation CA 1" signs every device's
/// credential certificate) check one signature instead of two: a remembered intermediate is trusted as an anchor, its
/// own validity period still checked at each attestation's time. At most ``capacity`` are kept; a chain through an
/// intermediate not kept is validated in full, as without the cache.
public final class AppAttestAnchorCache: Sendable {
    /// The most intermediates kept.
    public static let capacity = 16
    private let anchors = Mutex<[Certificate]>([])

    /// An empty cache.
    public init() {}

    /// The remembered intermediates among `intermediates` that are valid at `time`.
    func anchors(among intermediates: some Sequence<Certificate>, at time: Date) -> [Certificate] {
        let known = anchors.withLock { $0 }
        guard !known.isEmpty else { return [] }
        return intermediates.filter { candidate in
            known.contains(candidate) && candidate.notValidBefore <= time && time <= candidate.notValidAfter
        }
    }

    /// Remembers the intermediates of a validated path (leaf first, root last), not the leaf or the root.
    func remember(path: [Certificate]) {
        guard path.count > 2 else { return }
        anchors.withLock { kept in
            for intermediate in path.dropFirst().dropLast() where !kept.contains(intermediate) && kept.count < Self.capacity {
                kept.append(intermediate)
            }
        }
    }
}
