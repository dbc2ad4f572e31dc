import Foundation
import Logging
import TesseraServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts each embedded node as a `tessera node` child process of `tessera serve`, listening on a
/// free loopback port, so the server's process never holds a node key.
///
/// The child reads nothing from its standard input, a pipe this process keeps open: when the server
/// exits, however it exits (even SIGKILL), the pipe ends and the node stops (`--stop-on-stdin-eof`).
/// On a normal shutdown the server sends SIGTERM and waits. The node's log goes to the server's
/// standard error; its standard output is read for the ready line (``NodeReadyLine``).
struct ChildNodeLauncher: EmbeddedNodeLauncher {
    /// The `tessera` executable to start (this one).
    var executable: String
    var logLevel: Logger.Level
    /// The server's log format, which its embedded nodes take too.
    var logFormat: LogFormat = .text

    /// The path of the running executable.
    static func currentExecutable() -> String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }

    func launch(_ request: EmbeddedNodeRequest) async throws -> EmbeddedNode {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "node", "run", "--data-dir", request.directory, "--host", "127.0.0.1", "--port", "0", "--server-key", request.serverKey,
            "--log-level", logLevel.rawValue, "--log-format", logFormat.rawValue, "--stop-on-stdin-eof",
        ] + (request.appAttestRoots.map { ["--app-attest-roots", $0] } ?? [])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        do { try process.run() } catch {
            throw ConfigurationError("cannot start embedded node \(request.index) (\(executable) node): \(error)")
        }
        let ready = await Self.readyLine(from: output.fileHandleForReading)
        guard let ready else {
            process.waitUntilExit()
            throw ConfigurationError(
                "embedded node \(request.index) (\(request.directory)) stopped before it listened (exit status \(process.terminationStatus)); see its messages above"
            )
        }
        let handles = ChildHandles(process: process, input: input, output: output)
        return EmbeddedNode(nodeId: ready.nodeId, publicKey: ready.publicKey, url: ready.url) { await handles.stop() }
    }

    /// Reads lines until the ready line (nil when the output ends first); the rest of the output is
    /// drained in the background so the child never blocks on a full pipe.
    static func readyLine(from handle: FileHandle) async -> NodeReadyLine? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                var pending = Data()
                var answered = false
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    guard !answered else { continue }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        if let ready = NodeReadyLine(line: line) {
                            answered = true
                            continuation.resume(returning: ready)
                            break
                        }
                    }
                }
                if !answered { continuation.resume(returning: nil) }
            }
            thread.start()
        }
    }
}

/// A started child and its pipes (kept open while it runs).
private final class ChildHandles: @unchecked Sendable {
    let process: Process
    let input: Pipe
    let output: Pipe

    init(process: Process, input: Pipe, output: Pipe) {
        self.process = process
        self.input = input
        self.output = output
    }

    /// SIGTERM, then waits for the exit.
    func stop() async {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        await Task.detached { [self] in process.waitUntilExit() }.value
        try? input.fileHandleForWriting.close()
    }
}
