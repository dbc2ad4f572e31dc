import Foundation

/// A Standard Webhooks receiver (Tests/Fixtures/webhook_receiver.py under TESSERA_TEST_PYTHON) that
/// verifies every request with the published `standardwebhooks` library and records it, in its own
/// temporary directory. The test sets the secrets it verifies with, takes it down (503) and up, and
/// sets the time the library's timestamp check uses (the test's ``ManualClock``).
public final class WebhookReceiver: Sendable {
    /// Why the receiver cannot run.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The reason.
        public var description: String
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/webhook_receiver.py").path

    /// The receiver's temporary directory (secrets, mode, records, log).
    public let directory: String
    /// The loopback port it listens on.
    public let port: Int
    private let process: ChildProcess  // its stdin is a pipe: the receiver exits when it closes

    /// The URL to register as a webhook endpoint.
    public var url: String { "http://127.0.0.1:\(port)/hooks" }
    /// What the receiver printed.
    public var log: String { (try? String(contentsOfFile: directory + "/receiver.log", encoding: .utf8)) ?? "" }

    /// Starts the receiver (up, with no secrets yet).
    public init() async throws {
        let python = try TestRequirements.python(importing: ["standardwebhooks"], for: "the Standard Webhooks receiver")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-webhooks-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        process = try ChildProcess(python, [Self.script, "--dir", directory], stdin: .pipe, stdout: .file(directory + "/receiver.log"))
        // The receiver writes its port file once it listens (bounded wait on that condition).
        guard let found = try await process.portFile(directory + "/port") else {
            let log = (try? String(contentsOfFile: directory + "/receiver.log", encoding: .utf8)) ?? ""
            try? process.input?.close()
            process.terminate()
            throw Unavailable(description: "webhook receiver did not start:\n\(log)")
        }
        port = found
    }

    /// The secrets each request is verified with (one verdict per secret, in this order).
    public func setSecrets(_ secrets: [String]) throws {
        try secrets.joined(separator: "\n").write(toFile: directory + "/secrets", atomically: true, encoding: .utf8)
    }

    /// Down: every request gets 503 (an outage). Up: verified requests get 204.
    public func setDown(_ down: Bool) throws {
        try (down ? "down" : "up").write(toFile: directory + "/mode", atomically: true, encoding: .utf8)
    }

    /// The time (ms since 1970) the library's five-minute timestamp check compares with.
    public func setNow(_ millis: Int64) throws {
        try String(Double(millis) / 1000).write(toFile: directory + "/now", atomically: true, encoding: .utf8)
    }

    /// The requests received, oldest first (one JSON object each: id, timestamp, signature, status, verified, payload).
    public func records() throws -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: directory + "/records.jsonl", encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    /// The IDs of the requests answered 2xx (verified), oldest first.
    public func acceptedIds() throws -> [String] {
        try records().filter { ($0["status"] as? Int).map { (200..<300).contains($0) } ?? false }.compactMap { $0["id"] as? String }
    }

    /// Ends the receiver and removes its directory.
    public func stop() {
        try? process.input?.close()
        process.terminate()
        _ = process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
