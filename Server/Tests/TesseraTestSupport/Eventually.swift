/// Waits for an event that tests cannot be told about directly (a courier delivery, a process
/// starting, a background stream) by checking `condition` every 20 ms.
///
/// The bound is only a guard against a test hanging forever, never a timing assertion: it is
/// generous on purpose (two minutes by default), so a busy two-core machine cannot make it fail.
/// - Returns: true once `condition` held, false when the bound passed first.
public func eventually(
    timeout: Duration = .seconds(120), _ condition: @Sendable () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
}

/// The first value `produce` returns that is not nil, checked every 20 ms (see ``eventually(timeout:_:)``).
/// - Returns: nil when the bound passed first.
public func eventually<T>(
    timeout: Duration = .seconds(120), _ produce: @Sendable () async throws -> T?
) async rethrows -> T? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await produce() { return value }
        if ContinuousClock.now >= deadline { return nil }
        try? await Task.sleep(for: .milliseconds(20))
    }
}
