import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraTestSupport
import TesseraServerTestSupport

/// Identity proofing end to end with real delivery: a live server, the courier running, real SMTP
/// (STARTTLS + AUTH) to an aiosmtpd, the code read from the received mail.
@Suite("Delivery end to end", .serialized)
struct DeliveryEndToEndTests {
    typealias MailServer = MailFixtures.SMTPTestServer

    @Test("send over HTTP, mail arrives over SMTP, verify the code from the mail", arguments: TestDatabase.kinds)
    func liveServerRealMail(kind: TestDatabase) async throws {
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true) { mail in
            try await withTestRuntime(kind, configure: {
                $0.smtp = MailFixtures.smtpSettings(mail)
                $0.emailDelivery = .smtp
                $0.courierPollInterval = .milliseconds(100)
            }) { runtime in
                let client = try await runtime.makeTestClient()
                let app = Application(
                    router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                    services: [runtime.courier], logger: TestDatabase.logger
                )
                nonisolated(unsafe) let mail = mail
                try await app.test(.live) { http in
                    var headers: HTTPFields = [.contentType: "application/json"]
                    headers[HTTPField.Name(TesseraHeader.clientKey)!] = client.clientKey
                    headers[HTTPField.Name(TesseraHeader.bundleId)!] = client.bundleIds[0]
                    let send = try await http.executeRequest(
                        uri: "/v1/otp/send", method: .post, headers: headers,
                        body: ByteBuffer(string: #"{"sendType":"email","sendTarget":"Dana@Example.com"}"#)
                    )
                    #expect(send.status == .accepted)
                    let received = try await MailFixtures.waitForMail(mail, count: 1)
                    #expect(received[0].rcptTos == ["dana@example.com"])
                    #expect(received[0].tls && received[0].authenticated)
                    print("[\(kind)] mail received over SMTP (STARTTLS, AUTH) by aiosmtpd on port \(mail.port)")
                    let code = try MailFixtures.code(in: received[0])
                    let verify = try await http.executeRequest(
                        uri: "/v1/otp/verify", method: .post, headers: headers,
                        body: ByteBuffer(string: #"{"sendType":"email","sendTarget":"dana@example.com","otpNumber":"\#(code)"}"#)
                    )
                    #expect(verify.status == .ok)
                    let answer = try JSONDecoder().decode(VerifyOTPResponse.self, from: Data(buffer: verify.body))
                    #expect(answer.disposeToken.hasPrefix("tdt_"))
                    let again = try await http.executeRequest(
                        uri: "/v1/otp/verify", method: .post, headers: headers,
                        body: ByteBuffer(string: #"{"sendType":"email","sendTarget":"dana@example.com","otpNumber":"\#(code)"}"#)
                    )
                    #expect(try JSONDecoder().decode(Problem.self, from: Data(buffer: again.body)).code == ErrorCode.otpExpired.rawValue)
                }
                #expect(try await runtime.outbox.counts() == .init(pending: 0, sent: 1, failed: 0))
            }
        }
    }

    @Test("a send accepted before a restart is delivered after it")
    func deliveredAcrossRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-restart-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // First life: the SMTP server is down; the send is accepted and the process "dies" before delivery.
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        configuration.createDemoClient = false
        configuration.emailDelivery = .smtp
        configuration.smtp = SMTPSettings(host: "127.0.0.1", port: 9, security: .none, username: nil, password: nil, from: "t@example.com")
        let first = try await TesseraRuntime.bootstrap(configuration: configuration, logger: TestDatabase.logger, nodeLauncher: InProcessNodeLauncher())
        let client = try await first.makeTestClient()
        _ = try await first.otp.send(client: client, channel: .email, target: "erin@example.com", purpose: .signup, ip: nil)
        await first.shutdown()

        // Second life on the same data directory, now with a reachable SMTP server.
        try await MailFixtures.withSMTPServer(mode: .starttls, auth: true) { mail in
            configuration.smtp = MailFixtures.smtpSettings(mail)
            let second = try await TesseraRuntime.bootstrap(configuration: configuration, logger: TestDatabase.logger, nodeLauncher: InProcessNodeLauncher())
            #expect(try await second.outbox.counts() == .init(pending: 1, sent: 0, failed: 0))
            await second.courier.drain()
            let received = try await MailFixtures.waitForMail(mail, count: 1)
            #expect(received[0].rcptTos == ["erin@example.com"])
            let result = try await second.otp.verify(
                client: client, channel: .email, target: "erin@example.com", code: try MailFixtures.code(in: received[0]), purpose: .signup
            )
            guard case .valid = result else { Issue.record("code from the delivered mail refused: \(result)"); return }
            #expect(try await second.outbox.counts() == .init(pending: 0, sent: 1, failed: 0))
            await second.shutdown()
        }
    }

    @Test("a failed delivery is retried later with backoff, then succeeds", arguments: TestDatabase.kinds)
    func retryWithBackoff(kind: TestDatabase) async throws {
        let manual = ManualClock()
        try await MailFixtures.withSMTPServer(mode: .plain) { mail in
            try await withTestRuntime(kind, clock: manual.clock, configure: {
                $0.emailDelivery = .smtp
                $0.smtp = SMTPSettings(host: "127.0.0.1", port: 9, security: .none, username: nil, password: nil, from: "t@example.com")
            }) { broken in
                let client = try await broken.makeTestClient()
                _ = try await broken.otp.send(client: client, channel: .email, target: "fred@example.com", purpose: .signup, ip: nil)
                #expect(await broken.courier.drain() == 1)
                // Failed once: still pending, not due again before the backoff.
                #expect(try await broken.outbox.counts() == .init(pending: 1, sent: 0, failed: 0))
                #expect(await broken.courier.drain() == 0)

                // Same database, a courier that can reach the server, after the backoff.
                var working = broken.outbox
                working.maxAttempts = 12
                let courier = CourierService(
                    outbox: working,
                    senders: [.email: SMTPSender(client: SMTPClient(
                        settings: SMTPSettings(host: "127.0.0.1", port: mail.port, security: .none, username: nil, password: nil, from: "t@example.com"),
                        logger: TestDatabase.logger))],
                    logger: TestDatabase.logger
                )
                manual.advance(by: .seconds(3))
                #expect(await courier.drain() == 1)
                let received = try await MailFixtures.waitForMail(mail, count: 1)
                #expect(received[0].rcptTos == ["fred@example.com"])
                #expect(try await broken.outbox.counts() == .init(pending: 0, sent: 1, failed: 0))
            }
        }
    }
}
