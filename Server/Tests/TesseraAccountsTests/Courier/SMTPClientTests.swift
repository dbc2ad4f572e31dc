import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing
import TesseraTestSupport

@testable import TesseraServer
import TesseraServerTestSupport

/// SMTPClient against a real SMTP server: aiosmtpd, started from Tests/Fixtures/smtp_server.py for each test.
@Suite("SMTPClient")
struct SMTPClientTests {
    typealias SMTPTestServer = MailFixtures.SMTPTestServer
    typealias ReceivedMail = MailFixtures.ReceivedMail
    typealias RecordingLogHandler = MailFixtures.RecordingLogHandler
    typealias ScriptedSMTPServer = MailFixtures.ScriptedSMTPServer

    static let from = "Tessera <noreply@tessera.test>"

    func settings(_ server: SMTPTestServer, host: String = "127.0.0.1", security: SMTPSettings.Security,
                  username: String? = nil, password: String? = nil) -> SMTPSettings {
        SMTPSettings(host: host, port: server.port, security: security, username: username, password: password,
                     from: Self.from, trustedCAFile: server.certificate, timeout: .seconds(10))
    }

    static func code() -> String { String(format: "%06d", Int.random(in: 0...999_999)) }

    @Test func plainWithoutAuth() async throws {
        let logs = RecordingLogHandler.Box()
        try await MailFixtures.withSMTPServer(mode: .plain) { server in
            let code = Self.code()
            let body = "Your sign-in code is \(code).\nIt expires in 10 minutes."
            let client = SMTPClient(settings: settings(server, security: .none), logger: logs.logger())
            try await client.send(SMTPMessage(to: "alice@example.org", subject: "Your code", body: body))

            let raw = try #require(try server.rawMessages().only)
            #expect(raw.contains(code))
            #expect(raw.contains("\r\nContent-Type: text/plain; charset=utf-8\r\n"))
            let mail = try #require(try server.receivedMessages().only)
            #expect(mail.mailFrom == "noreply@tessera.test")
            #expect(mail.rcptTos == ["alice@example.org"])
            #expect(!mail.tls && !mail.authenticated)
            #expect(mail.from == Self.from && mail.to == "alice@example.org" && mail.subject == "Your code")
            #expect(mail.dateValid && mail.mimeVersion == "1.0")
            #expect(mail.messageId.hasPrefix("<") && mail.messageId.hasSuffix("@tessera.test>"))
            #expect(mail.contentType == "text/plain" && mail.charset == "utf-8" && mail.transferEncoding == "7bit")
            #expect(mail.body == body + "\n")
            #expect(mail.defects.isEmpty)
            #expect(!logs.text.contains(code), "the message body must not be logged")
        }
    }

    @Test func startTLSWithAuthPlain() async throws {
        let logs = RecordingLogHandler.Box()
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true) { server in
            let code = Self.code()
            let client = SMTPClient(
                settings: settings(server, security: .startTLS, username: SMTPTestServer.user, password: SMTPTestServer.password),
                logger: logs.logger())
            try await client.send(SMTPMessage(to: "bob@example.org", subject: "Code", body: "Code: \(code)"))

            #expect(try server.rawMessages().only?.contains(code) == true)
            let mail = try #require(try server.receivedMessages().only)
            #expect(mail.tls && mail.authenticated && mail.authMechanism == "PLAIN")
            let text = logs.text
            #expect(text.contains("STARTTLS"), "trace logging is on, so the dialogue is logged")
            #expect(!text.contains(SMTPTestServer.password) && !text.contains(code))
            #expect(!text.contains(Data("\0\(SMTPTestServer.user)\0\(SMTPTestServer.password)".utf8).base64EncodedString()))
        }
    }

    @Test func implicitTLSWithAuth() async throws {
        try await MailFixtures.withSMTPServer(mode: .tls, auth: true) { server in
            let code = Self.code()
            // "localhost": checks the certificate's DNS name (and SNI) rather than its IP address.
            let client = SMTPClient(
                settings: settings(server, host: "localhost", security: .implicitTLS,
                                   username: SMTPTestServer.user, password: SMTPTestServer.password),
                logger: Logger(label: "test"))
            try await client.send(SMTPMessage(to: "carol@example.org", subject: "Code", body: "Code: \(code)"))

            #expect(try server.rawMessages().only?.contains(code) == true)
            let mail = try #require(try server.receivedMessages().only)
            #expect(mail.tls && mail.authenticated)
        }
    }

    @Test func authLoginWhenServerOffersNoPlain() async throws {
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true, arguments: ["--exclude-auth", "PLAIN"]) { server in
            let client = SMTPClient(
                settings: settings(server, security: .startTLS, username: SMTPTestServer.user, password: SMTPTestServer.password),
                logger: Logger(label: "test"))
            try await client.send(SMTPMessage(to: "dave@example.org", subject: "Code", body: "Code: \(Self.code())"))
            let mail = try #require(try server.receivedMessages().only)
            #expect(mail.authenticated && mail.authMechanism == "LOGIN")
        }
    }

    @Test func plainAuthIsAllowedOnLoopback() async throws {
        try await MailFixtures.withSMTPServer(mode: .plain, auth: true) { server in
            let client = SMTPClient(
                settings: settings(server, security: .none, username: SMTPTestServer.user, password: SMTPTestServer.password),
                logger: Logger(label: "test"))
            try await client.send(SMTPMessage(to: "erin@example.org", subject: "Code", body: "Code: \(Self.code())"))
            let mail = try #require(try server.receivedMessages().only)
            #expect(!mail.tls && mail.authenticated)
        }
    }

    @Test func wrongPasswordGives535() async throws {
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true) { server in
            let password = "not-the-password"
            let client = SMTPClient(
                settings: settings(server, security: .startTLS, username: SMTPTestServer.user, password: password),
                logger: Logger(label: "test"))
            let error = await #expect(throws: SMTPError.self) {
                try await client.send(SMTPMessage(to: "frank@example.org", subject: "Code", body: "123456"))
            }
            #expect(error?.code == 535)
            #expect(error?.stage == "AUTH")
            #expect(error?.description.contains("535") == true)
            #expect(error?.description.contains(password) == false)
            let received = try server.receivedMessages()
            #expect(received.isEmpty)
        }
    }

    @Test("UTF-8 subject and body round-trip", arguments: [true, false])
    func utf8RoundTrip(server8BitMIME: Bool) async throws {
        try await MailFixtures.withSMTPServer(mode: .plain, arguments: server8BitMIME ? [] : ["--no-8bitmime"]) { server in
            let code = Self.code()
            let subject = "Ваш код входа — \(code) ✓ Grüße aus Köln 🌍 (ein recht langer Betreff)"
            let body = """
                Hallo Jürgen,

                dein Code lautet \(code) 🔐
                .
                .eine Zeile mit Punkt am Anfang
                \(String(repeating: "ü", count: 120)) = Ende\t
                Grüße

                """
            let client = SMTPClient(settings: settings(server, security: .none), logger: Logger(label: "test"))
            try await client.send(SMTPMessage(to: "grete@example.org", subject: subject, body: body))

            let mail = try #require(try server.receivedMessages().only)
            #expect(mail.subject == subject)
            #expect(mail.body == body)
            #expect(mail.transferEncoding == (server8BitMIME ? "8bit" : "quoted-printable"))
            #expect(mail.mailOptions.contains("BODY=8BITMIME") == server8BitMIME)
            #expect(mail.defects.isEmpty)
            let raw = try #require(try server.rawMessages().only)
            #expect(raw.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 998 })
            #expect(!raw.contains("Ваш"), "a non-ASCII subject goes out as RFC 2047 encoded-words")
        }
    }

    @Test func startTLSRequiredButNotOffered() async throws {
        try await MailFixtures.withSMTPServer(mode: .plain) { server in
            let client = SMTPClient(settings: settings(server, security: .startTLS), logger: Logger(label: "test"))
            let error = await #expect(throws: SMTPError.self) {
                try await client.send(SMTPMessage(to: "h@example.org", subject: "s", body: "b"))
            }
            #expect(error?.stage == "STARTTLS")
            let received = try server.receivedMessages()
            #expect(received.isEmpty)
        }
    }

    @Test func untrustedCertificateIsRejected() async throws {
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true) { server in
            var settings = settings(server, security: .startTLS, username: SMTPTestServer.user, password: SMTPTestServer.password)
            settings.trustedCAFile = nil
            let client = SMTPClient(settings: settings, logger: Logger(label: "test"))
            let error = await #expect(throws: SMTPError.self) {
                try await client.send(SMTPMessage(to: "i@example.org", subject: "s", body: "b"))
            }
            #expect(error?.code == nil)
            #expect(error?.description.contains("CERTIFICATE_VERIFY_FAILED") == true)
            let received = try server.receivedMessages()
            #expect(received.isEmpty)
        }
    }

    @Test func startTLSResponseInjectionIsRejected() async throws {
        // A man in the middle appends fake replies to "220" in plaintext; they must not count as post-TLS replies.
        let fake = try await ScriptedSMTPServer.start { line in
            switch line.prefix(4).uppercased() {
            case "EHLO": "250-fake\r\n250 STARTTLS\r\n"
            case "STAR": "220 go ahead\r\n250-fake\r\n250 AUTH PLAIN\r\n"
            default: "250 OK\r\n"
            }
        }
        let port = try #require(fake.localAddress?.port)
        let client = SMTPClient(settings: SMTPSettings(host: "127.0.0.1", port: port, security: .startTLS, from: Self.from),
                                logger: Logger(label: "test"))
        let error = await #expect(throws: SMTPError.self) {
            try await client.send(SMTPMessage(to: "l@example.org", subject: "s", body: "b"))
        }
        #expect(error?.description.contains("unencrypted data after STARTTLS") == true)
        try await fake.close()
    }

    @Test("the Date header is written by hand: the same text as Foundation's formatter, leap days and 1969 included")
    func dateHeaderMatchesFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        var generator = SystemRandomNumberGenerator()
        let fixed: [TimeInterval] = [0, -1, -86_400, 951_782_400, 1_709_164_800, 1_709_251_199, 4_107_542_399, 1_795_510_207.9]
        let random = (0..<500).map { _ in TimeInterval(Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator)) }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(SMTPClient.rfc5322Date(date) == formatter.string(from: date), "\(seconds)")
        }
    }

    @Test func sessionsAreReusedAndCapped() async throws {
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true) { server in
            var settings = settings(server, security: .startTLS, username: SMTPTestServer.user, password: SMTPTestServer.password)
            settings.maxSessions = 2
            let client = SMTPClient(settings: settings, logger: Logger(label: "test"))
            // One after another: one session carries them all (one TCP connection, one TLS handshake, one AUTH).
            for index in 0..<4 {
                try await client.send(SMTPMessage(to: "seq\(index)@example.org", subject: "s", body: "b \(index)"))
            }
            let sequential = try server.receivedMessages()
            #expect(sequential.map(\.rcptTos) == (0..<4).map { ["seq\($0)@example.org"] })
            #expect(Set(sequential.map(\.peerPort)).count == 1)
            #expect(sequential.allSatisfy { $0.tls && $0.authenticated })
            // Twelve at once: every one delivered, over at most two sessions.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask { try await client.send(SMTPMessage(to: "par\(index)@example.org", subject: "s", body: "b")) }
                }
                try await group.waitForAll()
            }
            let parallel = try server.receivedMessages().dropFirst(4)
            #expect(Set(parallel.flatMap(\.rcptTos)) == Set((0..<12).map { "par\($0)@example.org" }) && parallel.count == 12)
            #expect(Set(parallel.map(\.peerPort)).count <= 2)
            #expect(client.sessions.statistics.open <= 2)
        }
    }

    @Test func reusedSessionThatBreaksBeforeTheContentIsRetriedOnce() async throws {
        // MAIL FROM on the second message gets 421 (the server is closing the session): the message
        // goes out again on a new session. A 550 for a recipient is not retried.
        struct Script { var ehlo = 0, mail = 0, delivered = 0, inData = false }
        let script = Mutex(Script())
        let fake = try await ScriptedSMTPServer.start { line in
            script.withLock { state in
                if state.inData {
                    guard line == "." else { return "" }
                    state.inData = false
                    state.delivered += 1
                    return "250 OK queued\r\n"
                }
                switch line.prefix(4).uppercased() {
                case "EHLO": state.ehlo += 1; return "250 fake\r\n"
                case "MAIL":
                    state.mail += 1
                    return state.mail == 2 ? "421 4.4.2 closing this session\r\n" : "250 OK\r\n"
                case "RCPT": return line.contains("unknown@") ? "550 5.1.1 no such user\r\n" : "250 OK\r\n"
                case "DATA": state.inData = true; return "354 go ahead\r\n"
                default: return "250 OK\r\n"
                }
            }
        }
        let port = try #require(fake.localAddress?.port)
        // No idle timeout within the test: on a busy machine a session idle for 10 s closes, and the third message
        // would then go out on a new session.
        let settings = SMTPSettings(host: "127.0.0.1", port: port, security: .none, from: Self.from,
                                    sessionIdleTimeout: .seconds(600))
        let client = SMTPClient(settings: settings, logger: Logger(label: "test"))
        try await client.send(SMTPMessage(to: "one@example.org", subject: "s", body: "b"))
        try await client.send(SMTPMessage(to: "two@example.org", subject: "s", body: "b"))
        #expect(script.withLock { ($0.ehlo, $0.mail, $0.delivered) } == (2, 3, 2))
        let error = await #expect(throws: SMTPError.self) {
            try await client.send(SMTPMessage(to: "unknown@example.org", subject: "s", body: "b"))
        }
        #expect(error?.code == 550 && error?.stage == "RCPT TO")
        #expect(script.withLock { ($0.ehlo, $0.mail, $0.delivered) } == (2, 4, 2))
        try await fake.close()
    }

    @Test(arguments: ["mail.example.com", "127.0.0.1.example.com", "192.0.2.1"])
    func refusesAuthOverPlaintextToRemoteHost(host: String) async throws {
        let settings = SMTPSettings(host: host, port: 25, security: .none, username: "u", password: "p",
                                    from: Self.from)
        let error = await #expect(throws: SMTPError.self) {
            try await SMTPClient(settings: settings, logger: Logger(label: "test"))
                .send(SMTPMessage(to: "j@example.org", subject: "s", body: "b"))
        }
        #expect(error?.stage == "AUTH" && error?.code == nil)
    }

    @Test(.timeLimit(.minutes(2))) func timeoutCoversTheWholeExchange() async throws {
        // A server that accepts connections and never says anything.
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        var settings = SMTPSettings(host: "127.0.0.1", port: port, security: .none, from: Self.from)
        // Long enough that the loopback connect itself is done well within it on a busy machine (with
        // 500 ms, one full local run of the tests timed out while still connecting: stage "connect").
        settings.timeout = .seconds(5)
        let client = SMTPClient(settings: settings, logger: Logger(label: "test"))
        // The server never answers, so only the exchange's own timeout can end the send: it must end,
        // with a timeout error (the time limit fails the test if it hangs; how long it took on a busy
        // machine is not asserted).
        let error = await #expect(throws: SMTPError.self) {
            try await client.send(SMTPMessage(to: "k@example.org", subject: "s", body: "b"))
        }
        #expect(error?.description.contains("timed out") == true)
        #expect(error?.stage == "greeting")  // the step that hung is named
        try await silent.close()
    }
}

// MARK: - Fixture

extension Array {
    /// The single element, or nil if there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
