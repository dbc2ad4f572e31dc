import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program the tests start (the `tessera` executable, a Python peer, openssl, curl), spawned with
/// `posix_spawn` directly.
///
/// Foundation's `Process.run()` on Linux lists `/proc/self/fd` to close the parent's descriptors in
/// the child and copies each entry's whole 256-byte name out of `readdir`'s buffer; once the test
/// process holds about 1,350 descriptors (the parallel suites do), that copy reads past the buffer
/// and the test process dies with SIGSEGV. Two CI runs crashed there. This type closes the parent's
/// descriptors in the child with `posix_spawn_file_actions_addclosefrom_np` instead, reads pipes with
/// an EINTR-safe loop (`readDataToEndOfFile` traps on EINTR), and never blocks a concurrency thread
/// while it waits.
public final class ChildProcess: Sendable {
    /// Where the program's standard input comes from.
    public enum Input: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe the test writes to through ``input``; closing it ends the program's input.
        case pipe
    }

    /// Where the program's standard output or error goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe the test reads through ``output`` (or ``errors``).
        case pipe
        /// A file, created if missing and appended to.
        case file(String)
        /// The test process's own descriptor.
        case inherit
    }

    /// Why a program could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        /// What failed, with the program's path.
        public let description: String
    }

    /// The program's process ID.
    public let pid: pid_t
    /// The write end of its standard input (``Input/pipe`` only).
    public let input: FileHandle?
    /// The read end of its standard output (``Output/pipe`` only).
    public let output: FileHandle?
    /// The read end of its standard error (``Output/pipe`` given for `stderr` only).
    public let errors: FileHandle?
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` (a path; a bare name is looked up on `PATH`) with `arguments`.
    /// - Parameters:
    ///   - environment: the whole environment; `nil` passes the test process's own.
    ///   - directory: the working directory; `nil` keeps the test process's.
    ///   - stderr: `nil` sends standard error wherever standard output goes.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        stdin: Input = .null, stdout: Output = .null, stderr: Output? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []  // closed in the parent on failure
        var childEnds: [Int32] = []  // closed in the parent after the spawn
        func fail(_ what: String, _ code: Int32 = errno) -> SpawnError {
            for fd in parentEnds + childEnds { close(fd) }
            return SpawnError(description: "\(executable): \(what): \(String(cString: strerror(code)))")
        }
        func makePipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw fail("pipe") }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }

        var inputEnd: Int32?
        switch stdin {
        case .null:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            let fds = try makePipe()
            parentEnds.append(fds.write)
            childEnds.append(fds.read)
            inputEnd = fds.write
            posix_spawn_file_actions_adddup2(&actions, fds.read, 0)
        }
        func route(_ target: Output, to descriptor: Int32) throws -> Int32? {
            switch target {
            case .null:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .inherit:
                break
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .pipe:
                let fds = try makePipe()
                parentEnds.append(fds.read)
                childEnds.append(fds.write)
                posix_spawn_file_actions_adddup2(&actions, fds.write, descriptor)
                return fds.read
            }
            return nil
        }
        let outputEnd = try route(stdout, to: 1)
        var errorsEnd: Int32?
        if let stderr {
            errorsEnd = try route(stderr, to: 2)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        if let directory {
            guard let addChdir = Self.addChdir else { throw fail("no posix_spawn_file_actions_addchdir_np", ENOSYS) }
            let result = directory.withCString { addChdir(&actions, $0) }
            guard result == 0 else { throw fail("chdir \(directory)", result) }
        }
        // Every descriptor above standard error is closed in the child, whatever the test process holds.
        if let addCloseFrom = Self.addCloseFrom { _ = addCloseFrom(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in variables { free(pointer) }
        }
        var spawned: pid_t = 0
        let result = executable.contains("/")
            ? posix_spawn(&spawned, executable, &actions, &attributes, argv, variables)
            : posix_spawnp(&spawned, executable, &actions, &attributes, argv, variables)
        guard result == 0 else { throw fail("cannot start", result) }
        for fd in childEnds { close(fd) }
        pid = spawned
        input = inputEnd.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        output = outputEnd.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        errors = errorsEnd.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not import.
    private static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    /// glibc 2.29's `posix_spawn_file_actions_addchdir_np`, likewise.
    private static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")
    private static func symbol<T>(_ name: String) -> T? {
        guard let address = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }

    /// The exit status once the program has ended (128 + the signal's number when a signal ended it).
    public var terminationStatus: Int32? { status.withLock { $0 } }

    /// Whether the program still runs (reaps it if it has ended).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the program to end, blocking this thread; returns its ``terminationStatus``.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        while true {
            if let status = reap(blocking: true) { return status }
        }
    }

    /// Waits for the program to end on a thread of its own (never one of Swift concurrency's).
    @discardableResult
    public func exited() async -> Int32 {
        await Self.onOwnThread { self.waitUntilExit() }
    }

    /// Runs `body` on a new thread and waits for it without holding one of the few threads Swift
    /// concurrency has (an in-process server the program talks to needs them).
    public static func onOwnThread<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { () throws(E) -> T in try body() }) }.start()
        }
        return try result.get()
    }

    /// The port a peer writes to `path` once it listens: waits on that condition while the program
    /// runs (five minutes at most, only against a program that hangs; a loaded machine took over
    /// 20 s to start a Python peer); nil when it never came.
    public func portFile(_ path: String) async throws -> Int? {
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline, isRunning {
            if let port = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap({ Int($0) }) { return port }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Sends `signal` to the program (nothing once it has been reaped).
    public func signal(_ signal: Int32) {
        status.withLock { if $0 == nil { _ = kill(pid, signal) } }
    }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    private func reap(blocking: Bool) -> Int32? {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
        if result == pid {
            let low = raw & 0x7f
            let code = low == 0 ? (raw >> 8) & 0xff : 128 + low
            return status.withLock { stored in
                if stored == nil { stored = code }
                return stored
            }
        }
        if result == 0 || errno == EINTR { return nil }
        // ECHILD: another thread reaped it and is about to record the status.
        while true {
            if let known = status.withLock({ $0 }) { return known }
            sched_yield()
        }
    }

    deinit {
        // A test that failed before it waited must not leave a zombie or a running peer behind.
        if status.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            _ = waitpid(pid, &raw, 0)
        }
    }

    /// Everything `handle` gives until its end, retrying reads a signal interrupted.
    public static func readAll(_ handle: FileHandle) -> Data {
        var data = Data()
        while true {
            let chunk = readSome(handle)
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// What `handle` gives in one read, waiting until there is something; empty at its end.
    /// (`availableData`, like `readDataToEndOfFile`, traps when a signal interrupts the read.)
    public static func readSome(_ handle: FileHandle) -> Data {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Data(buffer[0..<count]) }
            if count == 0 || errno != EINTR { return Data() }
        }
    }

    /// Runs a program to its end, blocking this thread: standard output and error together, and the
    /// exit status. `input`, when given, is written to its standard input, which is then closed.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Data? = nil, timeout: Double? = nil
    ) throws -> (status: Int32, output: String) {
        let child = try ChildProcess(
            executable, arguments, environment: environment, directory: directory, stdin: input == nil ? .null : .pipe, stdout: .pipe
        )
        if let input, let handle = child.input {
            let writer = Thread {
                try? handle.write(contentsOf: input)
                try? handle.close()
            }
            writer.start()
        }
        // A safety net only: a program that should have stopped at once but serves instead is ended.
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { child.signal(SIGTERM) }
        }
        let output = String(decoding: readAll(child.output!), as: UTF8.self)
        return (child.waitUntilExit(), output)
    }

    /// ``runBlocking(_:_:environment:directory:input:timeout:)`` on a thread of its own, so that an
    /// in-process server the program talks to keeps its concurrency threads.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Data? = nil, timeout: Double? = nil
    ) async throws -> (status: Int32, output: String) {
        try await onOwnThread {
            try runBlocking(executable, arguments, environment: environment, directory: directory, input: input, timeout: timeout)
        }
    }
}
