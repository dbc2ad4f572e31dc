extension WallClock {
    /// Runs `body`, failing with `failure()` when it takes longer than `timeout` on this clock.
    package func withTimeout<T: Sendable>(
        _ timeout: Duration, failure: @escaping @Sendable () -> any Error, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let sleep = self.sleep
        return try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await sleep(timeout)
                throw failure()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
