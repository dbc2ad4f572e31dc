import ArgumentParser
import Foundation
import Tessera
import TesseraCore

/// `tessera bench signup`: full sign-up ceremonies (OTP send, code from the development outbox,
/// verify, signed sign-up) against a running server, through the public SDK, at a fixed concurrency.
/// Prints one JSON line. Used by `bench/signup.sh`; a load generator, not a test.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Load generators for the benchmarks in bench/.", subcommands: [Signup.self]
    )

    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign-up ceremonies per second at a given concurrency.")
        @Option(help: "Server URL.") var server: String
        @Option(help: "Client key.") var clientKey: String
        @Option(help: "Bundle identifier.") var bundleId = "dev.tessera.demo"
        @Option(help: "The server's data directory (codes are read from its development outbox).") var outbox: String
        @Option(help: "Concurrent ceremonies.") var concurrency = 16
        @Option(help: "Seconds to run.") var duration = 20
        @Option(help: "Prefix making addresses unique across runs.") var prefix = "b"
        @Option(help: "Run number 0–9, making phone numbers unique across runs.") var runNumber = 0

        func run() async throws {
            guard let url = URL(string: server) else { throw ValidationError("--server is not a URL") }
            let codes = OutboxTail(path: (outbox as NSString).appendingPathComponent("outbox.jsonl"))
            let deadline = ContinuousClock.now + .seconds(duration)
            let start = ContinuousClock.now
            let results = await withTaskGroup(of: [(ok: Bool, millis: Double)].self) { group in
                for worker in 0..<concurrency {
                    group.addTask {
                        var results: [(ok: Bool, millis: Double)] = []
                        var index = 0
                        while ContinuousClock.now < deadline {
                            index += 1
                            let began = ContinuousClock.now
                            let ok = await ceremony(
                                url: url, codes: codes, name: "\(prefix)-\(worker)-\(index)",
                                phone: "+49\(runNumber % 10)" + String(format: "%03d%07d", worker % 1000, index % 10_000_000)
                            )
                            let elapsed = ContinuousClock.now - began
                            results.append((ok, Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000))
                        }
                        return results
                    }
                }
                return await group.reduce(into: [(ok: Bool, millis: Double)]()) { $0 += $1 }
            }
            let seconds = Double((ContinuousClock.now - start).components.seconds) + Double((ContinuousClock.now - start).components.attoseconds) / 1e18
            let good = results.filter(\.ok).map(\.millis).sorted()
            func percentile(_ p: Double) -> Double { good.isEmpty ? 0 : good[min(good.count - 1, Int(Double(good.count) * p))] }
            print(String(
                format: #"RESULT {"conc":%d,"ceremonies":%d,"failed":%d,"duration_s":%.2f,"rate":%.1f,"p50_ms":%.1f,"p99_ms":%.1f}"#,
                concurrency, good.count, results.count - good.count, seconds, Double(good.count) / seconds, percentile(0.5), percentile(0.99)
            ))
        }

        func ceremony(url: URL, codes: OutboxTail, name: String, phone: String) async -> Bool {
            let email = "\(name)@bench.example.com"
            let client = TesseraClient(configuration: .init(serverURL: url, clientKey: clientKey, bundleIdentifier: bundleId))
            do {
                try await client.requestSendOTPNumber(sendType: .email, sendTarget: email)
                let code = try await codes.code(for: email)
                guard case .valid(let token) = try await client.verifyOTPNumber(sendType: .email, sendTarget: email, otpNumber: code) else {
                    return false
                }
                try await client.requestSignUp(userData: UserData(
                    appVersion: "bench", token: "", email: email, phoneNumber: phone,
                    userKey: name, name: "Bench User", authType: .none, os: "Linux", disposeToken: token, agreeGccs: true, agreePerson: true,
                    agreeDevice: true
                ), localAuthenticator: NoLocalAuthentication(), reason: "bench")
                return true
            } catch {
                return false
            }
        }
    }
}

/// Local authentication that always passes: the benchmark measures the server, not the user.
struct NoLocalAuthentication: LocalAuthenticator {
    func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult { LocalAuthResult() }
}

/// Follows the development outbox file and hands out the newest code per recipient.
actor OutboxTail {
    let path: String
    private var offset: UInt64 = 0
    private var codes: [String: String] = [:]
    private var partial = Data()

    init(path: String) { self.path = path }

    struct Entry: Decodable { var to: String; var body: String }

    func code(for recipient: String) async throws -> String {
        for _ in 0..<2000 {
            if let code = codes.removeValue(forKey: recipient) { return code }
            readNew()
            if let code = codes.removeValue(forKey: recipient) { return code }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ValidationError("no code for \(recipient)")
    }

    private func readNew() {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        guard let data = try? handle.readToEnd(), !data.isEmpty else { return }
        offset += UInt64(data.count)
        partial.append(data)
        while let newline = partial.firstIndex(of: 0x0A) {
            let line = partial[partial.startIndex..<newline]
            partial = Data(partial[partial.index(after: newline)...])
            if let entry = try? JSONDecoder().decode(Entry.self, from: line), let match = entry.body.firstMatch(of: /\b(\d{6})\b/) {
                codes[entry.to] = String(match.1)
            }
        }
    }
}
