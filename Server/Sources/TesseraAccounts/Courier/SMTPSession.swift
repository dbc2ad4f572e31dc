import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import TesseraStorage

/// One SMTP session of an ``SMTPSessionPool``: it connects, greets, upgrades with STARTTLS and
/// authenticates as ``SMTPSettings`` say, then carries the pool's messages one mail transaction
/// at a time until it is idle too long or has carried its share, and says QUIT. A watchdog holds
/// every step to ``SMTPSettings/timeout``.
package struct SMTPSession: Sendable {
    package let settings: SMTPSettings
    package let eventLoopGroup: any EventLoopGroup
    package let logger: Logger

    /// The message a session is carrying, and how far it got.
    private struct InFlight {
        var job: SMTPSessionPool.Job
        /// The session had carried a message before this one.
        var reused: Bool
        /// The content went out (after that a failure is never retried: it may have been delivered).
        var contentSent = false
    }

    /// What the conversation and the watchdog share: the message in flight, and whether the
    /// session was opened.
    private final class Progress: Sendable {
        let current = Mutex<InFlight?>(nil)
        let opened = Atomic(false)
        /// The step under way (what a timeout names): "connect", then each command's stage.
        let stage = Mutex("connect")
    }

    /// Runs session `id` of `pool` until it ends, and settles the message it carried when it failed.
    package func run(pool: SMTPSessionPool, id: Int) async {
        let deadline = SMTPSessionDeadline(settings.timeout, .busy)  // opening the session is timed from here
        let progress = Progress()
        var failure: (any Error)?
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.converse(pool: pool, id: id, deadline: deadline, progress: progress) }
                group.addTask {
                    let timeout = settings.timeout
                    try await deadline.watch(
                        timedOut: { SMTPError(stage: progress.stage.withLock { $0 }, message: "timed out after \(timeout)") },
                        quitTimeout: timeout
                    ) { pool.expire(session: id) }
                }
                _ = try await group.next()
                group.cancelAll()
            }
        } catch let error as SMTPError {
            failure = error
        } catch {
            failure = SMTPError(stage: "exchange", message: "\(error)")
        }
        if let carried = progress.current.withLock({ $0.take() }) {
            let error = failure ?? SMTPError(stage: "exchange", message: "session ended")
            if Self.mayRetry(carried, after: error) {
                var job = carried.job
                job.retried = true
                logger.debug("SMTP session failed before the message went out; sending it on a new session", metadata: ["error": "\(error)"])
                pool.submit(job, front: true)
            } else {
                carried.job.reply.resume(throwing: error)
            }
        }
        pool.ended(session: id, openFailure: progress.opened.load(ordering: .acquiring) ? nil : failure)
    }

    /// A message is sent again on a new session only when a reused session broke (closed, reset,
    /// 421 "closing") before the message's content went out, and only once.
    private static func mayRetry(_ carried: InFlight, after error: any Error) -> Bool {
        guard carried.reused, !carried.contentSent, !carried.job.retried else { return false }
        let code = (error as? SMTPError)?.code
        return code == nil || code == 421
    }

    private func converse(
        pool: SMTPSessionPool, id: Int, deadline: SMTPSessionDeadline, progress: Progress
    ) async throws {
        let tls = try settings.security == .none ? nil : makeTLSContext()
        let channel: NIOAsyncChannel<SMTPLine, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(TimeAmount(settings.timeout))
                .connect(host: settings.host, port: settings.port) { [settings] channel in
                    channel.eventLoop.makeCompletedFuture {
                        let implicitTLS = settings.security == .implicitTLS
                        if implicitTLS, let tls {
                            try channel.pipeline.syncOperations.addHandler(Self.tlsHandler(tls, host: settings.host))
                        }
                        try channel.pipeline.syncOperations.addHandler(SMTPLineHandler(encrypted: implicitTLS))
                        return try NIOAsyncChannel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SMTPError(stage: "connect", message: "\(settings.host):\(settings.port): \(error)")
        }
        // The conversation runs on the channel's own event loop: each reply resumes it where it was read, without
        // a hop to the global executor and back per command (four per message).
        try await withTaskExecutorPreference(EventLoopTaskExecutor.on(channel.channel.eventLoop)) {
            try await channel.executeThenClose { inbound, outbound in
                var smtp = SMTPConversation(lines: inbound.makeAsyncIterator(), writer: outbound, logger: logger) { stage in
                    progress.stage.withLock { $0 = stage }
                }
                let ehlo = try await handshake(&smtp, channel: channel, tls: tls)
                progress.opened.store(true, ordering: .releasing)
                var carried = 0
                // The sender of the message just delivered goes on once this session is back in the pool, so
                // that a message it sends next finds the session idle instead of opening another one.
                var delivered: CheckedContinuation<Void, any Error>?
                while carried < settings.messagesPerSession {
                    deadline.arm(settings.sessionIdleTimeout, .idle)
                    let next = await pool.next(session: id, after: delivered)
                    delivered = nil
                    guard let job = next else { break }
                    deadline.arm(settings.timeout, .busy)
                    progress.current.withLock { $0 = InFlight(job: job, reused: carried > 0) }
                    try await transaction(&smtp, job.message, ehlo: ehlo) { progress.current.withLock { $0?.contentSent = true } }
                    delivered = progress.current.withLock { $0.take() }?.job.reply
                    carried += 1
                }
                delivered?.resume()
                deadline.arm(settings.timeout, .busy)
                _ = try? await smtp.command("QUIT", stage: "QUIT", expect: 221...221)
            }
        }
    }

    /// Greeting, EHLO, STARTTLS and EHLO again, AUTH; the EHLO reply the session goes on with.
    private func handshake(
        _ smtp: inout SMTPConversation, channel: NIOAsyncChannel<SMTPLine, ByteBuffer>, tls: NIOSSLContext?
    ) async throws -> SMTPReply {
        _ = try await smtp.readReply(stage: "greeting", expect: 220...220)
        var ehlo = try await smtp.command("EHLO \(settings.heloName)", stage: "EHLO")
        if settings.security == .startTLS, let tls {
            guard ehlo.extension("STARTTLS") != nil else {
                throw SMTPError(stage: "STARTTLS", message: "server does not offer STARTTLS")
            }
            _ = try await smtp.command("STARTTLS", stage: "STARTTLS", expect: 220...220)
            let host = settings.host
            try await channel.channel.eventLoop.submit {
                let pipeline = channel.channel.pipeline.syncOperations
                try pipeline.handler(type: SMTPLineHandler.self).startTLS()
                try pipeline.addHandler(Self.tlsHandler(tls, host: host), position: .first)
            }.get()
            smtp.requireEncryption = true  // a reply that came in before the handshake is an injection attack
            ehlo = try await smtp.command("EHLO \(settings.heloName)", stage: "EHLO after STARTTLS")
        }
        if let username = settings.username {
            try await authenticate(&smtp, mechanisms: ehlo.extension("AUTH") ?? [], username: username)
        }
        return ehlo
    }

    /// One mail transaction; `contentSending` is called just before the content goes out.
    private func transaction(
        _ smtp: inout SMTPConversation, _ message: SMTPMessage, ehlo: SMTPReply, contentSending: () -> Void
    ) async throws {
        let mail = SMTPClient.render(message, from: settings.from, server8BitMIME: ehlo.extension("8BITMIME") != nil)
        let body8Bit = mail.transferEncoding == "8bit" ? " BODY=8BITMIME" : ""
        _ = try await smtp.command("MAIL FROM:<\(SMTPClient.address(settings.from))>\(body8Bit)", stage: "MAIL FROM")
        _ = try await smtp.command("RCPT TO:<\(SMTPClient.address(message.to))>", stage: "RCPT TO")
        _ = try await smtp.command("DATA", stage: "DATA", expect: 354...354)
        contentSending()
        _ = try await smtp.command(mail.data, stage: "DATA", logAs: "<message, \(mail.data.utf8.count) bytes>")
        logger.debug("SMTP message accepted", metadata: ["smtp.host": "\(settings.host)", "smtp.message_id": "\(mail.messageID)"])
    }

    private func authenticate(_ smtp: inout SMTPConversation, mechanisms: [String], username: String) async throws {
        let password = settings.password ?? ""
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if mechanisms.contains("PLAIN") {
            _ = try await smtp.command("AUTH PLAIN " + base64("\0\(username)\0\(password)"), stage: "AUTH",
                                       expect: 235...235, logAs: "AUTH PLAIN <credentials>")
        } else if mechanisms.contains("LOGIN") {
            _ = try await smtp.command("AUTH LOGIN", stage: "AUTH", expect: 334...334)
            _ = try await smtp.command(base64(username), stage: "AUTH", expect: 334...334, logAs: "<username>")
            _ = try await smtp.command(base64(password), stage: "AUTH", expect: 235...235, logAs: "<password>")
        } else {
            throw SMTPError(stage: "AUTH", message: "server offers no supported AUTH mechanism (offered: \(mechanisms))")
        }
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = settings.trustedCAFile { configuration.additionalTrustRoots = [.file(file)] }
        do { return try NIOSSLContext(configuration: configuration) } catch {
            throw SMTPError(stage: "TLS", message: "cannot set up TLS: \(error)")
        }
    }

    /// SNI must not carry an IP address; without a name NIOSSL checks the certificate against the peer's IP.
    private static func tlsHandler(_ context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        let isIP = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isIP ? nil : host)
    }
}
