import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import TesseraCore

/// Where and how to deliver mail: the submission server, its transport security and credentials.
package struct SMTPSettings: Sendable {
    /// Transport security: plain TCP, upgrade with STARTTLS, or TLS from the first byte (port 465 style).
    package enum Security: String, Sendable { case none, startTLS = "starttls", implicitTLS = "tls" }
    package var host: String
    package var port: Int
    package var security: Security
    package var username: String?
    package var password: String?
    /// Envelope sender and header `From`; either `a@b.c` or `Name <a@b.c>` (ASCII only).
    package var from: String
    package var heloName: String = "tessera.local"
    /// PEM file of extra trust roots (for self-signed test servers); nil = system roots only.
    package var trustedCAFile: String? = nil
    /// Limit on each step of a session: opening it (connect, greeting, EHLO, STARTTLS, AUTH), and
    /// each message's transaction (MAIL FROM to the server's acceptance of the content).
    package var timeout: Duration = .seconds(15)
    /// Sessions kept open at most at once (see ``SMTPSessionPool``); more messages wait for one.
    package var maxSessions = 16
    /// Messages one session carries before it says QUIT and a new one is opened.
    package var messagesPerSession = 100
    /// How long a session stays open without a message (RFC 5321 servers wait 5 minutes at least).
    package var sessionIdleTimeout: Duration = .seconds(10)

    package init(
        host: String,
        port: Int,
        security: Security,
        username: String? = nil,
        password: String? = nil,
        from: String,
        heloName: String = "tessera.local",
        trustedCAFile: String? = nil,
        timeout: Duration = .seconds(15),
        maxSessions: Int = 16,
        messagesPerSession: Int = 100,
        sessionIdleTimeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.from = from
        self.heloName = heloName
        self.trustedCAFile = trustedCAFile
        self.timeout = timeout
        self.maxSessions = maxSessions
        self.messagesPerSession = messagesPerSession
        self.sessionIdleTimeout = sessionIdleTimeout
    }
}

/// One plain-text UTF-8 e-mail to a single recipient.
package struct SMTPMessage: Sendable {
    package var to: String
    package var subject: String
    package var body: String


    package init(to: String, subject: String, body: String) {

        self.to = to

        self.subject = subject

        self.body = body

    }
}

/// A failed send: the server's reply to a step (`code` set), or a local failure (`code` nil) such as a network,
/// TLS, policy or timeout error. Never contains the password.
package struct SMTPError: Error, Sendable, CustomStringConvertible {
    /// The step that failed: "connect", "greeting", "EHLO", "STARTTLS", "AUTH", "MAIL FROM", "RCPT TO", "DATA", ….
    package var stage: String
    /// The server's three-digit reply code, or nil when the failure was local.
    package var code: Int?
    /// The server's reply text (lines of a multi-line reply joined by "; "), or a local explanation.
    package var message: String

    package var description: String {
        "SMTP \(stage) failed: " + (code.map { "\($0) " } ?? "") + message
    }
}

/// Sends mail over SMTP with SwiftNIO. Sessions are kept open between messages and reused
/// (``SMTPSessionPool``); every connection is closed on every path.
package struct SMTPClient: Sendable {
    package let settings: SMTPSettings
    package let eventLoopGroup: any EventLoopGroup
    package let logger: Logger
    /// This client's open sessions.
    package let sessions: SMTPSessionPool

    package init(settings: SMTPSettings, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        let session = SMTPSession(settings: settings, eventLoopGroup: eventLoopGroup, logger: logger)
        sessions = SMTPSessionPool(maxSessions: settings.maxSessions) { pool, id in await session.run(pool: pool, id: id) }
    }

    /// Delivers `message`; throws `SMTPError` if a step fails or takes longer than `settings.timeout`.
    package func send(_ message: SMTPMessage) async throws {
        for (name, value) in [("from", settings.from), ("to", message.to), ("subject", message.subject)]
        where value.contains(where: { $0.isNewline }) {
            throw SMTPError(stage: "message", message: "\(name) must not contain line breaks")
        }
        guard settings.from.utf8.allSatisfy({ $0 < 128 }), message.to.utf8.allSatisfy({ $0 < 128 }) else {
            throw SMTPError(stage: "message", message: "addresses must be ASCII")
        }
        if settings.username != nil, settings.security == .none, !Self.isLoopback(settings.host) {
            throw SMTPError(stage: "AUTH", message: "refusing to send credentials over an unencrypted connection")
        }
        try await sessions.deliver(message)
    }

    /// "localhost", 127.x.x.x or ::1 (not a DNS name such as "127.example.com").
    package static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard host != "localhost" else { return true }
        guard (try? SocketAddress(ipAddress: host, port: 0)) != nil else { return false }
        return host == "::1" || host.hasPrefix("127.")
    }

    /// The bare address of `Name <a@b.c>` or `a@b.c`.
    package static func address(_ mailbox: String) -> String {
        guard let open = mailbox.lastIndex(of: "<"), let close = mailbox[open...].firstIndex(of: ">") else {
            return String(Substring(mailbox).utf8.trimmingOptionalWhitespace()) ?? mailbox
        }
        return String(mailbox[mailbox.index(after: open)..<close])
    }

    // MARK: - Message rendering

    /// The DATA payload (headers, body, dot-stuffed, CRLF, with the final "."), its Message-ID and body encoding.
    package static func render(_ message: SMTPMessage, from: String, server8BitMIME: Bool, date: Date = Date())
        -> (data: String, messageID: String, transferEncoding: String)
    {
        var lines = message.body.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }  // a final newline ends the last line
        let longest = lines.map(\.utf8.count).max() ?? 0
        let ascii = message.body.utf8.allSatisfy { $0 < 128 }
        let encoding = longest <= 998 && ascii ? "7bit" : longest <= 998 && server8BitMIME ? "8bit" : "quoted-printable"
        let bodyLines = encoding == "quoted-printable" ? lines.flatMap(quotedPrintable) : lines.map(String.init)

        let domain = address(from).split(separator: "@").last.map(String.init) ?? "tessera.local"
        var generator = SystemRandomNumberGenerator()
        let unique = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: ".")
        let messageID = "<\(unique)@\(domain)>"
        let headers = [
            "Date: \(rfc5322Date(date))",
            "From: \(from)",
            "To: \(message.to)",
            "Subject: \(encodedWords(message.subject))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: \(encoding)",
        ]
        let all = (headers + [""] + bodyLines).map { $0.hasPrefix(".") ? "." + $0 : $0 }
        return (all.joined(separator: "\r\n") + "\r\n.", messageID, encoding)
    }

    /// An RFC 5322 date in UTC, such as `Tue, 24 Nov 2026 08:50:07 +0000`. Written by hand: a
    /// `DateFormatter` (ICU) per message was a quarter of the courier's CPU.
    package static func rfc5322Date(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = Int((days % 7 + 11) % 7)  // 1970-01-01 was a Thursday
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(weekdays[weekday]), \(two(day)) \(months[Int(month) - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) +0000"
    }

    /// RFC 2047 `=?utf-8?B?…?=` words (folded, at most 75 characters each) for non-ASCII header text.
    package static func encodedWords(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 >= 32 && $0 < 127 }) else { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?utf-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    /// One body line as quoted-printable (RFC 2045 §6.7): lines of at most 76 characters with soft breaks.
    package static func quotedPrintable(_ line: Substring) -> [String] {
        let hex = Array("0123456789ABCDEF".utf8)
        let bytes = Array(line.utf8)
        var output: [String] = []
        var current: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            let literal = (33...126).contains(byte) && byte != UInt8(ascii: "=") || (byte == 32 || byte == 9) && !isLast
            let piece = literal ? [byte] : [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            if current.count + piece.count > 75 {
                output.append(String(decoding: current + [UInt8(ascii: "=")], as: UTF8.self))
                current = []
            }
            current += piece
        }
        output.append(String(decoding: current, as: UTF8.self))
        return output
    }
}

/// A server reply: its code and the text of each line (`250-…` continuation lines included).
package struct SMTPReply: Sendable {
    package var code: Int
    package var lines: [String]

    /// The parameters of an EHLO keyword such as `AUTH PLAIN LOGIN` (uppercased), or nil if not offered.
    package func `extension`(_ keyword: String) -> [String]? {
        for line in lines.dropFirst() {
            let words = line.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" }).map(String.init)
            if words.first == keyword { return Array(words.dropFirst()) }
        }
        return nil
    }
}

/// Reads replies and writes commands on one connection, logging commands (never credentials or the message).
package struct SMTPConversation {
    package var lines: NIOAsyncChannelInboundStream<SMTPLine>.AsyncIterator
    package let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
    package let logger: Logger
    package var requireEncryption = false
    /// Told the stage of each reply awaited (so that a timeout can name the step that hung).
    package var onStage: @Sendable (String) -> Void = { _ in }

    package mutating func readReply(stage: String, expect: ClosedRange<Int>) async throws -> SMTPReply {
        onStage(stage)
        var text: [String] = []
        while true {
            let line: SMTPLine?
            do { line = try await lines.next() } catch {
                throw SMTPError(stage: stage, message: "\(error)")
            }
            guard let line else { throw SMTPError(stage: stage, message: "connection closed by server") }
            guard line.encrypted || !requireEncryption else {
                throw SMTPError(stage: stage, message: "server sent unencrypted data after STARTTLS")
            }
            let bytes = Array(line.text.utf8)
            guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
                throw SMTPError(stage: stage, message: "malformed reply")
            }
            text.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
            if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { continue }
            logger.trace("S: \(code) \(text.joined(separator: "; "))")
            guard expect.contains(code) else {
                throw SMTPError(stage: stage, code: code, message: text.joined(separator: "; "))
            }
            return SMTPReply(code: code, lines: text)
        }
    }

    package mutating func command(_ line: String, stage: String, expect: ClosedRange<Int> = 250...259,
                          logAs: String? = nil) async throws -> SMTPReply {
        onStage(stage)
        logger.trace("C: \(logAs ?? line)")
        do { try await writer.write(ByteBuffer(string: line + "\r\n")) } catch {
            // The connection is gone; the inbound side knows why (e.g. a failed TLS handshake) and throws that.
            _ = try await readReply(stage: stage, expect: expect)
            throw SMTPError(stage: stage, message: "\(error)")
        }
        return try await readReply(stage: stage, expect: expect)
    }
}

/// A line from the server without its CRLF, and whether it came through TLS.
package struct SMTPLine: Sendable {
    package var text: String
    package var encrypted: Bool
}

/// Splits the inbound bytes into lines (CRLF or bare LF), marking each as encrypted once TLS is on.
package final class SMTPLineHandler: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = SMTPLine
    private var pending = ByteBuffer()
    private var encrypted: Bool

    package init(encrypted: Bool) { self.encrypted = encrypted }

    /// Called on the event loop as the TLS handler goes in: bytes still pending arrived in plaintext.
    package func startTLS() throws {
        guard pending.readableBytes == 0 else {
            throw SMTPError(stage: "STARTTLS", message: "server sent unencrypted data after STARTTLS")
        }
        encrypted = true
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        pending.writeBuffer(&bytes)
        while let newline = pending.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            var text = pending.readString(length: newline - pending.readerIndex) ?? ""
            pending.moveReaderIndex(forwardBy: 1)
            if text.hasSuffix("\r") { text.removeLast() }
            context.fireChannelRead(wrapInboundOut(SMTPLine(text: text, encrypted: encrypted)))
        }
        pending.discardReadBytes()
        if pending.readableBytes > 8192 {
            context.fireErrorCaught(SMTPError(stage: "reply", message: "reply line too long"))
            context.close(promise: nil)
        }
    }
}
