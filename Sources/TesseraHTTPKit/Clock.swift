import Foundation

/// Wall-clock time, injected so tests can move it.
public struct WallClock: Sendable {
    /// Milliseconds since 1970.
    public var now: @Sendable () -> Int64

    public init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// The system clock.
    public static let system = WallClock { nowMillis() }

    /// The system time in milliseconds since 1970.
    public static func nowMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// A clock that tests move by hand.
public final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64

    public init(start: Int64 = 1_800_000_000_000) { value = start }

    public func advance(by duration: Duration) {
        lock.withLock { value += duration.millis }
    }

    public var clock: WallClock { WallClock { [self] in lock.withLock { value } } }
}
