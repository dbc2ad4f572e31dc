import Foundation
import Synchronization

/// Tells this process's audit-log readers (the admin console's live view) that rows were appended
/// here, so they read at once instead of at their next poll. Rows appended by other instances are
/// found by those polls. Signalled from inside the appending transaction, so a reader woken before
/// the commit sees the rows at its next wake or poll. With no reader, a signal is one uncontended lock.
package final class AuditAppendSignal: Sendable {
    private let listeners = Mutex<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextId = Atomic<Int>(0)

    package init() {}

    /// Wakes every listener.
    package func signal() {
        listeners.withLock { listeners in
            for continuation in listeners.values { continuation.yield() }
        }
    }

    /// A stream of wake-ups (at most one buffered) and its continuation, to feed it from a poll too;
    /// the listener is removed when the stream ends.
    package func listen() -> (AsyncStream<Void>, AsyncStream<Void>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextId.add(1, ordering: .relaxed).newValue
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        return (stream, continuation)
    }
}
