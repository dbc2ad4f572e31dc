import Foundation
import SwiftASN1
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
    /// The remembered intermediates with their DER bytes (a chain's copy is recognised without being decoded).
    private let anchors = Mutex<[(der: [UInt8], certificate: Certificate)]>([])

    /// An empty cache.
    public init() {}

    /// The remembered intermediate whose DER bytes are `der`, nil when none is.
    func certificate(der: [UInt8]) -> Certificate? {
        anchors.withLock { kept in kept.first { $0.der == der }?.certificate }
    }

    /// The remembered intermediates among `intermediates` that are valid at `time`.
    func anchors(among intermediates: some Sequence<Certificate>, at time: Date) -> [Certificate] {
        let known = anchors.withLock { $0.map(\.certificate) }
        guard !known.isEmpty else { return [] }
        return intermediates.filter { candidate in
            known.contains(candidate) && candidate.notValidBefore <= time && time <= candidate.notValidAfter
        }
    }

    /// Remembers the intermediates of a validated path (leaf first, root last), not the leaf or the root.
    func remember(path: [Certificate]) {
        guard path.count > 2 else { return }
        let intermediates = path.dropFirst().dropLast().compactMap { intermediate -> (der: [UInt8], certificate: Certificate)? in
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(intermediate)) != nil else { return nil }
            return (serializer.serializedBytes, intermediate)
        }
        anchors.withLock { kept in
            for intermediate in intermediates where !kept.contains(where: { $0.certificate == intermediate.certificate }) && kept.count < Self.capacity {
                kept.append(intermediate)
            }
        }
    }
}
