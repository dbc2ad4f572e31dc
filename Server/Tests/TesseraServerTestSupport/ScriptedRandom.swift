import Synchronization
@testable import TesseraServer

/// Randomness that hands out queued byte strings first, then the system's: a queued string is given to the next
/// draw of its length (a test queues the challenge a minted App Attest attestation was made for, just before the
/// call that draws it).
package final class ScriptedRandom: Sendable {
    private let queue: Mutex<[[UInt8]]>

    /// Randomness with `queued` waiting.
    package init(_ queued: [[UInt8]] = []) { queue = Mutex(queued) }

    /// Queues `bytes` for the next draw of their length.
    package func enqueue(_ bytes: [UInt8]) { queue.withLock { $0.append(bytes) } }

    /// The source to inject.
    package var source: RandomSource {
        RandomSource { [self] count in
            let next = queue.withLock { queue -> [UInt8]? in
                guard let first = queue.first, first.count == count else { return nil }
                return queue.removeFirst()
            }
            return next ?? RandomSource.system.bytes(count)
        }
    }
}
