import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLKit
import Synchronization
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// PostgreSQL stopped and started again under load (issue 40 item 5): a live server on a PostgreSQL of the test's
/// own, six clients sending OTP e-mails without pause, real SMTP to aiosmtpd. What clients see is a 202 or a 503
/// problem (9002, storage unavailable), never another answer; the pool opens new connections by itself once the
/// server is back; every send that was accepted is delivered, once (a delivery whose fate could not be recorded
/// while PostgreSQL was away is recorded once it is back, not sent again when its lease ends; no statement waits for
/// ever on a connection PostgreSQL closed).
@Suite("PostgreSQL restart under load", .serialized)
struct PostgresRestartTests {
    /// What the senders saw.
    final class Tally: Sendable {
        struct State {
            var accepted: [String] = []
            var unavailable = 0
            var other: [String] = []
            var acceptedAfterResume = 0
            var resumed = false
            var done = false
        }
        let state = Mutex(State())
    }

    @Test("stop and resume under OTP sends: only 202s and 503 problems (9002); sends succeed again after the resume; each accepted send's mail arrives once")
    func restartUnderLoad() async throws {
        let postgres = try await PrivatePostgres.start()
        do {
            try await MailFixtures.withSMTPServer(mode: .plain) { mail in
                try await Self.run(postgres, mail)
            }
        } catch {
            await postgres.remove()
            throw error
        }
        await postgres.remove()
    }

    static func run(_ postgres: PrivatePostgres, _ mail: MailFixtures.SMTPTestServer) async throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-pgrestart-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        configuration.embeddedNodes = 0
        configuration.emailDelivery = .smtp
        configuration.smtp = SMTPSettings(host: "127.0.0.1", port: mail.port, security: .none, username: nil, password: nil, from: "t@example.com")
        configuration.courierPollInterval = .milliseconds(100)
        configuration.otp.perIPHourlyLimit = 1_000_000
        configuration.otp.perClientHourlyLimit = 1_000_000
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        let database = try await PostgresDatabase.open(url: postgres.url, logger: TestDatabase.logger)
        let runtime = try await TesseraRuntime.bootstrap(
            configuration: configuration, database: database, logger: TestDatabase.logger, clock: .system, nodeLauncher: InProcessNodeLauncher()
        )
        let client = try await runtime.makeTestClient()
        let app = Application(
            router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            services: [runtime.courier], logger: TestDatabase.logger
        )
        let tally = Tally()
        do {
            try await app.test(.live) { http in
                var headers: HTTPFields = [.contentType: "application/json"]
                headers[HTTPField.Name(TesseraHeader.clientKey)!] = client.clientKey
                headers[HTTPField.Name(TesseraHeader.bundleId)!] = client.bundleIds[0]
                let fixed = headers
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for sender in 0..<6 {
                        group.addTask {
                            var index = 0
                            while !tally.state.withLock({ $0.done }) {
                                index += 1
                                let target = "s\(sender)-\(index)@example.com"
                                let response = try await http.executeRequest(
                                    uri: "/v1/otp/send", method: .post, headers: fixed,
                                    body: ByteBuffer(string: #"{"sendType":"email","sendTarget":"\#(target)"}"#)
                                )
                                let code = (try? JSONDecoder().decode(Problem.self, from: Data(buffer: response.body)))?.code
                                tally.state.withLock { state in
                                    switch (response.status, code) {
                                    case (.accepted, _):
                                        state.accepted.append(target)
                                        if state.resumed { state.acceptedAfterResume += 1 }
                                    case (.serviceUnavailable, ErrorCode.storageUnavailable.rawValue?): state.unavailable += 1
                                    default: state.other.append("\(response.status.code) \(String(buffer: response.body))")
                                    }
                                }
                            }
                        }
                    }
                    let before = await eventually { tally.state.withLock { $0.accepted.count >= 30 } }
                    #expect(before, "sends accepted before the stop")
                    try await postgres.stop()
                    try await postgres.resume()
                    tally.state.withLock { $0.resumed = true }
                    let after = await eventually { tally.state.withLock { $0.acceptedAfterResume >= 30 } }
                    #expect(after, "sends accepted again after the resume, on connections the pool opened by itself")
                    tally.state.withLock { $0.done = true }
                    try await group.waitForAll()
                }
            }
            let state = tally.state.withLock { $0 }
            #expect(state.other.isEmpty, "answers other than 202 and 503 (9002): \(state.other.prefix(5))")
            print("[pg-restart] \(state.accepted.count) sends accepted (\(state.acceptedAfterResume) after the resume), \(state.unavailable) answered 503")
            // Every accepted send is delivered; none twice (a 503'd send whose COMMIT went through may be delivered too, once).
            nonisolated(unsafe) let sink = mail
            let accepted = state.accepted
            let delivered = await eventually {
                let received = Set(((try? sink.receivedMessages()) ?? []).flatMap(\.rcptTos))
                guard accepted.allSatisfy(received.contains) else { return false }
                return (try? await runtime.outbox.counts().pending) == 0
            }
            if !delivered {
                let received = Set(try mail.receivedMessages().flatMap(\.rcptTos))
                let missing = accepted.filter { !received.contains($0) }
                let rows = try await database.withSQL { sql in
                    try await sql.raw("SELECT recipient, status, attempts, locked_until, locked_by, next_attempt_at, last_error FROM outbox WHERE status <> 'sent'").all()
                }
                var lines: [String] = []
                for row in rows.prefix(20) {
                    let fields = ["recipient", "status", "attempts", "locked_until", "locked_by", "next_attempt_at", "last_error"].map { column in
                        (try? row.decode(column: column, as: String?.self)).flatMap { $0 } ?? (try? row.decode(column: column, as: Int64?.self)).flatMap { $0 }.map(String.init) ?? "nil"
                    }
                    lines.append(fields.joined(separator: " | "))
                }
                print("[pg-restart] missing \(missing.count): \(missing.prefix(10)); outbox rows not sent: \(rows.count); now \(Int64(Date().timeIntervalSince1970 * 1000))\n" + lines.joined(separator: "\n"))
            }
            #expect(delivered, "every accepted send delivered and the outbox drained")
            var seen: [String: Int] = [:]
            for to in try mail.receivedMessages().flatMap(\.rcptTos) { seen[to, default: 0] += 1 }
            #expect(seen.filter { $0.value > 1 }.isEmpty, "delivered twice: \(seen.filter { $0.value > 1 }.keys.sorted().prefix(5))")
        } catch {
            await runtime.shutdown()
            throw error
        }
        await runtime.shutdown()
    }
}
