import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import ServiceLifecycle
import Synchronization

extension BenchCommand {
    /// `tessera-bench ciba-ping`: CIBA ping notifications per second (CIBA Core 1.0 §10.2). The client must be in ping
    /// mode with its notification endpoint at `http://127.0.0.1:<receiver-port>/ping`, where this command listens.
    /// It makes up to `--count` ping-mode requests (for users that do not exist, so that no phone is involved) at the
    /// given concurrency, each with a `requested_expiry` that makes it due within one second of the same moment (the
    /// end of `--window`), then counts the pings that arrive, each checked (its bearer token the request's
    /// `client_notification_token`, its body the `auth_req_id`). Rate = pings / seconds from that moment to the last
    /// ping; server CPU over the same phase.
    struct CIBAPing: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ciba-ping", abstract: "CIBA ping notifications per second.")
        @Option(help: "Server URL.") var server: String
        @Option(help: "Client key (in ping mode, its endpoint at this command's receiver).") var clientKey: String
        @Option(help: "Client secret (client_secret_basic).") var clientSecret: String
        @Option(help: "The loopback port this command's notification receiver listens on.") var receiverPort: Int
        @Option(help: "Requests to make at most.") var count = 4000
        @Option(help: "Seconds for making the requests; they all become due at its end.") var window = 10
        @Option(help: "Concurrent requests.") var concurrency = 64
        @Option(name: .customLong("cpu-pid"), help: "A server process whose CPU time the sending phase is reported with.") var cpuPids: [Int32] = []

        /// What the receiver saw.
        final class Tally: Sendable {
            let expected = Mutex<[String: String]>([:])
            let state = Mutex<(ok: Int, wrong: Int, last: ContinuousClock.Instant?)>((0, 0, nil))
            let made = Mutex<(requests: Int, failed: Int)>((0, 0))
        }

        func run() async throws {
            let tally = Tally()
            let router = Router()
            router.post("ping") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 64 * 1024)
                let id = (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: String])?["auth_req_id"]
                let bearer = request.headers[.authorization]
                let expected = id.flatMap { id in tally.expected.withLock { $0[id] } }
                let now = ContinuousClock.now
                tally.state.withLock { state in
                    if let expected, bearer == "Bearer " + expected { state.ok += 1 } else { state.wrong += 1 }
                    state.last = now
                }
                return Response(status: .noContent)
            }
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: receiverPort)))
            let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
            let receiver = Task { try await group.run() }

            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            let base = server.hasSuffix("/") ? String(server.dropLast()) : server
            let flow = OIDCBenchFlow(
                http: http, base: base, clientId: clientKey, clientSecret: clientSecret, redirectUri: "http://127.0.0.1:9/callback",
                keys: .init(), issuer: base
            )
            let start = ContinuousClock.now, due = start + .seconds(window)
            let count = self.count, concurrency = self.concurrency
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        var index = worker
                        // Stop making requests a second before the moment they are all due.
                        while index < count, ContinuousClock.now < due - .seconds(1) {
                            let left = due - ContinuousClock.now
                            let expiry = Int(left.inSeconds.rounded(.up))
                            let token = "bench-\(index)-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
                            do {
                                let started = try await flow.token(
                                    ["scope": "openid", "login_hint": "ping-nobody-\(index)@bench.example.com", "client_notification_token": token,
                                     "requested_expiry": "\(expiry)"],
                                    path: "/oauth2/bc-authorize"
                                )
                                guard let id = started["auth_req_id"] as? String else { throw OIDCBenchFlow.Failure(description: "no auth_req_id") }
                                tally.expected.withLock { $0[id] = token }
                                tally.made.withLock { $0.requests += 1 }
                            } catch {
                                tally.made.withLock { $0.failed += 1 }
                                FileHandle.standardError.write(Data("bc-authorize failed: \(error)\n".utf8))
                            }
                            index += concurrency
                        }
                    }
                }
            }
            let (requests, failed) = tally.made.withLock { $0 }
            let cpu = ServerCPU(pids: cpuPids)
            try? await Task.sleep(until: due, clock: .continuous)
            let cpuBefore = cpu.seconds()
            // Await the last ping (bounded: a minute after the moment they were due, plus their backoff if any failed).
            var state = tally.state.withLock { $0 }
            while state.ok + state.wrong < requests, ContinuousClock.now < due + .seconds(120) {
                try? await Task.sleep(for: .milliseconds(20))
                state = tally.state.withLock { $0 }
            }
            let cpuUsed = cpu.seconds() - cpuBefore
            let seconds = state.last.map { ($0 - due).inSeconds } ?? 0
            print(String(
                format: #"RESULT {"conc":%d,"requests":%d,"failed":%d,"pings":%d,"wrong":%d,"seconds":%.2f,"rate":%.1f}"#,
                concurrency, requests, failed, state.ok, state.wrong, seconds, seconds > 0 ? Double(state.ok) / seconds : 0
            ))
            if !cpuPids.isEmpty { ServerCPU.report(seconds: cpuUsed, operations: state.ok) }
            try await http.shutdown()
            await group.triggerGracefulShutdown()
            _ = await receiver.result
        }
    }
}
