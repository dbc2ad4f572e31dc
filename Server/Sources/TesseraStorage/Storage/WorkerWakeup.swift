import ServiceLifecycle

/// When a delivery worker (the courier, the push sender) looks at its queue: at once when this
/// instance queued something (``wake()``), and every poll interval for the rest (other instances,
/// retries that fell due). Ends on graceful shutdown.
package struct WorkerWakeup: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the worker to look at its queue now.
    package func wake() { continuation.yield() }

    /// Calls `drain` on each wake-up until graceful shutdown.
    package func run(pollInterval: Duration, drain: @escaping @Sendable () async -> Void) async {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: pollInterval)
                        wake()
                    }
                }
                for await _ in stream.cancelOnGracefulShutdown() {
                    await drain()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
    }
}
