import Synchronization

/// Request ids for log lines and problem answers: a random prefix drawn once per process, then a
/// counter (`3q2-7LwQ.1f`). They only need to be unique across instances and restarts, not
/// unguessable: nothing is authorised by one. Drawing 128 random bits per request was a system
/// call on every request.
enum RequestIdentifier {
    private static let prefix: String = RandomSource.system.token(byteCount: 6) + "."
    private static let counter = Atomic<UInt64>(0)

    /// The next id of this process.
    static func next() -> String {
        let value = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return prefix + String(value, radix: 36)
    }
}
