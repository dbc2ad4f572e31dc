import Foundation

/// A loopback HTTP peer played by a Python script of Tests/Fixtures under TESSERA_TEST_PYTHON, in its own
/// temporary directory: it writes its port to DIR/port once listening, records one JSON line per request
/// in DIR/records.jsonl, reads DIR/mode (`up`/`down`), and exits when its stdin closes.
public final class FixtureServer: Sendable {
    /// Why the peer cannot run.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The reason.
        public var description: String
    }

    /// The peer's temporary directory.
    public let directory: String
    /// The loopback port it listens on.
    public let port: Int
    private let process: ChildProcess

    /// What the peer printed.
    public var log: String { (try? String(contentsOfFile: directory + "/receiver.log", encoding: .utf8)) ?? "" }

    /// Starts `script` (a file of Tests/Fixtures) with `--dir DIR` and `arguments`; `imports` are the
    /// Python modules it needs (a test without them fails naming them).
    public init(script: String, arguments: [String] = [], imports: [String], purpose: String) async throws {
        let python = try TestRequirements.python(importing: imports, for: purpose)
        let path = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "Fixtures/" + script).path
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-peer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        process = try ChildProcess(python, [path, "--dir", directory] + arguments, stdin: .pipe, stdout: .file(directory + "/receiver.log"))
        // The peer writes its port file once it listens (bounded wait on that condition).
        guard let found = try await process.portFile(directory + "/port") else {
            let log = (try? String(contentsOfFile: directory + "/receiver.log", encoding: .utf8)) ?? ""
            try? process.input?.close()
            process.terminate()
            throw Unavailable(description: "\(purpose) did not start:\n\(log)")
        }
        port = found
    }

    /// Down: every request gets 503 (an outage). Up: the peer answers as its script says.
    public func setDown(_ down: Bool) throws {
        try (down ? "down" : "up").write(toFile: directory + "/mode", atomically: true, encoding: .utf8)
    }

    /// The requests received, oldest first (one JSON object each).
    public func records() throws -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: directory + "/records.jsonl", encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// Ends the peer and removes its directory.
    public func stop() {
        try? process.input?.close()
        process.terminate()
        _ = process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
