import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on `<dataDir>/.startup.lock`, held while an instance opens, migrates and seeds
/// its storage, so that instances started together on one data directory (the zero-configuration
/// SQLite deployment, or replicas sharing a directory) take turns instead of racing. The lock is
/// the kernel's (`flock`): it ends with the process, so a crashed start never leaves it held.
/// PostgreSQL deployments on separate hosts are serialised by the migration's advisory lock instead.
package enum StartupLock {
    package static func withLock<T>(directory: String, _ body: () async throws -> T) async throws -> T {
        let path = (directory as NSString).appendingPathComponent(".startup.lock")
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ConfigurationError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            guard failure == EWOULDBLOCK || failure == EINTR else {
                throw ConfigurationError("cannot lock \(path): \(String(cString: strerror(failure)))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await body()
    }
}
