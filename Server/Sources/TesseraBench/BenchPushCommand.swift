import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import Tessera
import TesseraCore

extension BenchCommand {
    /// `tessera-bench push`: relying-party requests for many users whose devices have APNs tokens,
    /// and the pushes the APNs peer (Server/Tests/Fixtures/push_peer.py) records per second. Users
    /// are signed up through the SDK and register their tokens first (not measured); then each user
    /// gets one request (`POST /v1/rp/auth-requests`) for at most `--duration` seconds, and the bench
    /// follows the peer's record until every request's push has arrived.
    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pushes per second delivered to the APNs peer for relying-party requests.")
        @OptionGroup var load: LoadOptions
        @Option(help: "Client secret (for the relying-party API).") var clientSecret: String
        @Option(help: "The peer's records.jsonl.") var records: String
        @Option(help: "Users signed up first (one request each).") var users = 400
        @Option(help: "Seconds to wait for the last push after the last request.") var drainTimeout = 120

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load, perWorker = max(1, users / load.concurrency)
            let names = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<load.concurrency {
                    group.addTask {
                        var names: [String] = []
                        for slot in 0..<perWorker {
                            let name = "\(load.prefix)-p\(worker)-\(slot)", client = load.client(url)
                            try await benchSignUp(
                                client, codes: codes, name: name, phone: "+44\(load.runNumber % 10)" + String(format: "%03d%07d", worker, slot)
                            )
                            let token = SHA256.hash(data: Data(name.utf8)).map { String(format: "%02x", $0) }.joined()
                            try await client.updatePushToken(token, platform: .apns)
                            names.append(name)
                        }
                        return names
                    }
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let before = Self.delivered(records)
            let basic = "Basic " + Data("\(load.clientKey):\(clientSecret)".utf8).base64EncodedString()
            let endpoint = url.absoluteString.hasSuffix("/") ? url.absoluteString + "v1/rp/auth-requests" : url.absoluteString + "/v1/rp/auth-requests"
            let start = ContinuousClock.now, deadline = start + .seconds(load.duration)
            // Each worker sends its users' requests one after another until they or the time run out.
            let results = await withTaskGroup(of: [Bool].self) { group in
                for users in names {
                    group.addTask {
                        var results: [Bool] = []
                        for user in users where ContinuousClock.now < deadline {
                            results.append(await Self.request(endpoint, basic: basic, userKey: user))
                        }
                        return results
                    }
                }
                return await group.reduce(into: [Bool]()) { $0 += $1 }
            }
            let sent = results.filter { $0 }.count
            let requestsDone = ContinuousClock.now
            var delivered = Self.delivered(records) - before
            while delivered < sent, ContinuousClock.now < requestsDone + .seconds(drainTimeout) {
                try await Task.sleep(for: .milliseconds(20))
                delivered = Self.delivered(records) - before
            }
            let elapsed = ContinuousClock.now - start
            let seconds = elapsed.inSeconds
            print(String(
                format: #"RESULT {"conc":%d,"users":%d,"requests":%d,"failed":%d,"pushes":%d,"seconds":%.2f,"push_rate":%.1f}"#,
                load.concurrency, names.map(\.count).reduce(0, +), sent, results.count - sent, delivered, seconds, Double(delivered) / seconds
            ))
        }

        /// One relying-party request; true when the server took it (201).
        static func request(_ endpoint: String, basic: String, userKey: String) async -> Bool {
            var request = HTTPClientRequest(url: endpoint)
            request.method = .POST
            request.headers.add(name: "Authorization", value: basic)
            request.headers.add(name: "Content-Type", value: "application/json")
            guard let data = try? JSONEncoder().encode(RPAuthRequest(userKey: userKey, connectIp: "198.51.100.7", message: "Bench push")) else { return false }
            request.body = .bytes(ByteBuffer(bytes: data))
            guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(60)) else { return false }
            _ = try? await response.body.collect(upTo: 1 << 20)
            return response.status == .created
        }

        /// APNs messages the peer accepted (status 200) so far.
        static func delivered(_ path: String) -> Int {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
            return text.split(separator: "\n").filter { $0.contains(#""provider": "apns""#) && $0.contains(#""status": 200"#) }.count
        }
    }
}
