import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TesseraCore
@testable import TesseraServer
import TesseraTestSupport
import Testing

/// Mail for the server tests: an aiosmtpd server (Tests/Fixtures/smtp_server.py) with what it received, the
/// courier's SMTP settings for it, and a queued message.
package enum MailFixtures {
    package typealias MailServer = SMTPTestServer

    package static func message(_ to: String) -> OutboundMessage {
        OutboundMessage(id: "msg_" + UUID().uuidString, channel: .email, recipient: to, subject: "Your code", body: "Code 123456")
    }

    package static func smtpSettings(_ server: MailServer) -> SMTPSettings {
        SMTPSettings(
            host: "127.0.0.1", port: server.port, security: .startTLS, username: MailServer.user, password: MailServer.password,
            from: "tessera@example.com", trustedCAFile: server.certificate
        )
    }

    /// Waits for the sink to hold `count` mails. The deadline only guards against a hang: it allows for
    /// one SMTP exchange that times out (15 s, seen twice in local full runs on a loaded machine) and
    /// the courier's retry after it.
    package static func waitForMail(_ server: MailServer, count: Int, timeout: Duration = .seconds(60)) async throws -> [ReceivedMail] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let mails = try server.receivedMessages()
            if mails.count >= count { return mails }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ConfigurationError("expected \(count) mails, got \(try server.receivedMessages().count)")
    }

    package static func code(in mail: ReceivedMail) throws -> String {
        guard let match = mail.body.firstMatch(of: /\b(\d{6})\b/) else { throw ConfigurationError("no code in mail") }
        return String(match.1)
    }

package struct SMTPFixtureError: Error, CustomStringConvertible {
    package var description: String
}

/// Runs `body` against a fresh aiosmtpd server and stops the server afterwards, whatever happens.
package static func withSMTPServer(mode: SMTPTestServer.Mode, auth: Bool = false, arguments: [String] = [],
                    _ body: (SMTPTestServer) async throws -> Void) async throws {
    let server = try await SMTPTestServer(mode: mode, auth: auth, arguments: arguments)
    do {
        try await body(server)
    } catch {
        server.stop()
        throw error
    }
    server.stop()
}

/// One aiosmtpd process (Tests/Fixtures/smtp_server.py under /usr/bin/python3) listening on 127.0.0.1, with its
/// own temporary directory holding a self-signed certificate, the mailbox and the server's log.
package final class SMTPTestServer {
    package enum Mode: String { case plain, starttls, tls }
    package static let user = "mailer"
    package static let password = "pa55-Wort-9"
    package static let python = "/usr/bin/python3"
    package static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/smtp_server.py").path

    package let port: Int
    package let directory: URL
    package var mailbox: URL { directory.appending(path: "mailbox") }
    package var certificate: String { directory.appending(path: "cert.pem").path }
    package var log: String { (try? String(contentsOf: directory.appending(path: "server.log"), encoding: .utf8)) ?? "" }
    private let process: ChildProcess  // its stdin is a pipe: the server exits when it closes, even if the test process dies

    package init(mode: Mode, auth: Bool, arguments: [String]) async throws {
        let check = try await Self.run(Self.python, ["-c", "import aiosmtpd"])
        guard check.status == 0 else {
            throw SMTPFixtureError(description: """
                The SMTP tests need aiosmtpd for \(Self.python) (apt-get install -y python3-aiosmtpd): \(check.output)
                """)
        }
        directory = FileManager.default.temporaryDirectory.appending(path: "smtp-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let key = directory.appending(path: "key.pem").path
        let openssl = try await Self.run("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-days", "1",
            "-keyout", key, "-out", directory.appending(path: "cert.pem").path,
        ])
        guard openssl.status == 0 else { throw SMTPFixtureError(description: "openssl failed: \(openssl.output)") }

        // The port is free when picked but not reserved: another test's server may take it before this one
        // binds. A server that cannot bind exits, and one that binds prints "READY <port>", so the fixture
        // waits for that line (a connect would also succeed against the other server) and otherwise retries
        // on a new port.
        var args = [Self.script, "--mode", mode.rawValue, "--mailbox", directory.appending(path: "mailbox").path]
        if mode != .plain { args += ["--cert", directory.appending(path: "cert.pem").path, "--key", key] }
        if auth { args += ["--user", Self.user, "--password", Self.password] }
        var attempt = 0
        while true {
            attempt += 1
            let port = try await Self.freePort()
            let process = try ChildProcess(
                Self.python, args + arguments + ["--port", "\(port)"], stdin: .pipe,
                stdout: .file(directory.appending(path: "server.log").path)
            )
            switch await Self.waitUntilReady(process, port: port, log: directory.appending(path: "server.log")) {
            case .ready:
                self.port = port
                self.process = process
                return
            case .exited(let log) where attempt < 5 && log.contains("PORT IN USE \(port)"):
                continue
            case .exited(let log):
                try? FileManager.default.removeItem(at: directory)
                throw SMTPFixtureError(description: "SMTP server exited:\n\(log)")
            case .timedOut(let log):
                Self.stop(process)
                try? FileManager.default.removeItem(at: directory)
                throw SMTPFixtureError(description: "SMTP server did not listen on port \(port):\n\(log)")
            }
        }
    }

    private enum Start { case ready, exited(String), timedOut(String) }

    /// Waits for the server's "READY <port>" line, or for it to exit (a port taken meanwhile). The
    /// events decide, not a time window: on a loaded machine Python took over 20 s to start (a run
    /// failed that way). The five minutes are only a last resort against a server that hangs.
    private static func waitUntilReady(_ process: ChildProcess, port: Int, log: URL) async -> Start {
        let deadline = ContinuousClock.now + .seconds(300)
        func text() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        while ContinuousClock.now < deadline {
            if text().contains("READY \(port)\n") { return .ready }
            guard process.isRunning else { return .exited(text()) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return .timedOut(text())
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s) and deletes its directory.
    package func stop() {
        Self.stop(process)
        try? FileManager.default.removeItem(at: directory)
    }

    private static func stop(_ process: ChildProcess) {
        try? process.input?.close()
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        process.signal(SIGKILL)
    }

    /// Messages as the server received them (dot-unstuffed wire bytes), oldest first.
    package func rawMessages() throws -> [String] {
        try files("eml").map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }
    }

    /// Messages as Python's email package decoded them, oldest first.
    package func receivedMessages() throws -> [ReceivedMail] {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try files("json").map { try decoder.decode(ReceivedMail.self, from: Data(contentsOf: $0)) }
    }

    private func files(_ ext: String) throws -> [URL] {
        guard FileManager.default.fileExists(atPath: mailbox.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: mailbox, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == ext }
            .sorted { Int($0.deletingPathExtension().lastPathComponent) ?? 0 < Int($1.deletingPathExtension().lastPathComponent) ?? 0 }
    }

    private static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        do { return try await ChildProcess.run(executable, arguments) } catch {
            throw SMTPFixtureError(description: "cannot run \(executable): \(error)")
        }
    }

    /// A free loopback port below the kernel's ephemeral range (``freeLoopbackPort()``), so that no outgoing connection
    /// of another test takes it before the server binds.
    private static func freePort() async throws -> Int { try freeLoopbackPort() }
}

/// A fake SMTP server on 127.0.0.1 that greets with 220 and answers each command line with `reply(line)`.
package final class ScriptedSMTPServer: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer
    private let reply: @Sendable (String) -> String
    private var pending = ""

    package static func start(reply: @escaping @Sendable (String) -> String) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptedSMTPServer(reply: reply))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    private init(reply: @escaping @Sendable (String) -> String) { self.reply = reply }

    package func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "220 fake ESMTP\r\n")), promise: nil)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += String(buffer: unwrapInboundIn(data))
        while let end = pending.range(of: "\r\n") {
            let line = String(pending[..<end.lowerBound])
            pending.removeSubrange(..<end.upperBound)
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: reply(line))), promise: nil)
        }
    }
}

/// What the fixture wrote to N.json for each message.
package struct ReceivedMail: Decodable {
    package var mailFrom: String
    package var rcptTos: [String]
    package var mailOptions: [String]
    package var tls: Bool
    package var authenticated: Bool
    package var authMechanism: String?
    /// The client's port: one per connection.
    package var peerPort: Int?
    package var from: String
    package var to: String
    package var subject: String
    package var dateValid: Bool
    package var messageId: String
    package var mimeVersion: String
    package var contentType: String
    package var charset: String?
    package var transferEncoding: String
    package var body: String
    package var defects: [String]
}

/// A LogHandler that keeps every message (with metadata) so tests can check what was logged.
package struct RecordingLogHandler: LogHandler {
    package final class Box: Sendable {
        package init() {}

        package let lines = Mutex<[String]>([])
        package var text: String { lines.withLock { $0.joined(separator: "\n") } }
        package func logger() -> Logger {
            var logger = Logger(label: "test.smtp") { _ in RecordingLogHandler(box: self) }
            logger.logLevel = .trace
            return logger
        }
    }

    package let box: Box
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .trace
    package var metadataProvider: Logger.MetadataProvider?

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        box.lines.withLock { $0.append("\(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })") }
    }
}
}
