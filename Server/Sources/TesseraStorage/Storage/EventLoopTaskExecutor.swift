import NIOCore
import Synchronization

/// A task executor that runs its jobs on one NIO event loop, so that a statement's "is the connection
/// still open?" check and its write to the connection's channel happen on the channel's own loop, with
/// no close in between.
///
/// postgres-nio writes a statement to its channel without a promise: written to a channel that has just
/// closed (PostgreSQL restarting, a failover), the statement is dropped and its caller waits for ever.
/// Checked and written from another thread, the close can slip in between; on the loop it cannot, since
/// the loop also runs the close. Running there costs no extra hop: the write had to reach the loop
/// anyway, and the answer now resumes the caller there instead of on the global executor.
package final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// The loop the jobs run on.
    package let eventLoop: any EventLoop

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// One executor per event loop (a process has a handful of loops), made on first use.
    private static let executors = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])

    /// The executor that runs jobs on `eventLoop`.
    package static func on(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        executors.withLock { executors in
            let key = ObjectIdentifier(eventLoop)
            if let executor = executors[key] { return executor }
            let executor = EventLoopTaskExecutor(eventLoop: eventLoop)
            executors[key] = executor
            return executor
        }
    }
}
