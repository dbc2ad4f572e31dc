import Foundation

/// A Standard Webhooks receiver (Tests/Fixtures/webhook_receiver.py under TESSERA_TEST_PYTHON) that
/// verifies every request with the published `standardwebhooks` library and records it, in its own
/// temporary directory. The test sets the secrets it verifies with, takes it down (503) and up, and
/// sets the time the library's timestamp check uses (the test's ``ManualClock``).
public final class WebhookReceiver: Sendable {
    private let server: FixtureServer

    /// The receiver's temporary directory (secrets, mode, records, log).
    public var directory: String { server.directory }
    /// The loopback port it listens on.
    public var port: Int { server.port }
    /// The URL to register as a webhook endpoint.
    public var url: String { "http://127.0.0.1:\(port)/hooks" }
    /// What the receiver printed.
    public var log: String { server.log }

    /// Starts the receiver (up, with no secrets yet).
    public init() async throws {
        server = try await FixtureServer(script: "webhook_receiver.py", imports: ["standardwebhooks"], purpose: "the Standard Webhooks receiver")
    }

    /// The secrets each request is verified with (one verdict per secret, in this order).
    public func setSecrets(_ secrets: [String]) throws {
        try secrets.joined(separator: "\n").write(toFile: directory + "/secrets", atomically: true, encoding: .utf8)
    }

    /// Down: every request gets 503 (an outage). Up: verified requests get 204.
    public func setDown(_ down: Bool) throws { try server.setDown(down) }

    /// The time (ms since 1970) the library's five-minute timestamp check compares with.
    public func setNow(_ millis: Int64) throws {
        try String(Double(millis) / 1000).write(toFile: directory + "/now", atomically: true, encoding: .utf8)
    }

    /// The requests received, oldest first (one JSON object each: id, timestamp, signature, status, verified, payload).
    public func records() throws -> [[String: Any]] { try server.records() }

    /// The IDs of the requests answered 2xx (verified), oldest first.
    public func acceptedIds() throws -> [String] {
        try records().filter { ($0["status"] as? Int).map { (200..<300).contains($0) } ?? false }.compactMap { $0["id"] as? String }
    }

    /// Ends the receiver and removes its directory.
    public func stop() { server.stop() }
}
