import ArgumentParser
import Foundation
import Synchronization
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore

/// `tessera-bench`: the load generators and fixtures of the benchmarks in bench/ (a bench-only
/// executable, never part of the server or of `tessera`). Each load generator runs ceremonies
/// against a running server through the public SDK at a fixed concurrency and prints one JSON line.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera-bench", abstract: "Load generators for the benchmarks in bench/.",
        subcommands: [Signup.self, Login.self, TOTPBodies.self, Tokens.self, FlowSignup.self, PasswordLogin.self, OIDC.self, OIDCRefresh.self, Passkeys.self, Push.self, OIDCTiming.self, CIBA.self, CIBAPing.self, AppAttest.self, VerifyAttestation.self]
    )

    /// `tessera-bench signup`: full sign-up ceremonies (OTP send, code from the development outbox,
    /// verify, signed sign-up). Used by `bench/signup.sh`.

    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign-up ceremonies per second at a given concurrency.")
        @OptionGroup var load: LoadOptions

        func run() async throws {
            let url = try load.url(), codes = load.codes()
            let (results, start) = await measure(workers: load.concurrency, seconds: load.duration) { worker, index in
                await ceremony(
                    url: url, codes: codes, name: "\(load.prefix)-\(worker)-\(index)",
                    phone: "+49\(load.runNumber % 10)" + String(format: "%03d%07d", worker % 1000, index % 10_000_000)
                )
            }
            printResult(results, concurrency: load.concurrency, since: start)
        }

        func ceremony(url: URL, codes: OutboxTail, name: String, phone: String) async -> Bool {
            return (try? await benchSignUp(load.client(url), codes: codes, name: name, phone: phone)) != nil
        }
    }
}

extension BenchCommand {
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Node-quorum login ceremonies per second: one enrolled device per concurrent user, each running the SDK's full flow."
        )
        @OptionGroup var load: LoadOptions
        @Flag(help: "Follow each login's progress stream (an app that shows the steps); without it no stream is opened.")
        var progress = false

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load
            // One device per virtual user, enrolled through the SDK first (not measured).
            let devices = try await withThrowingTaskGroup(of: TesseraClient.self) { group in
                for worker in 0..<load.concurrency {
                    group.addTask {
                        let client = load.client(url)
                        try await benchSignUp(
                            client, codes: codes, name: "\(load.prefix)-\(worker)",
                            phone: "+48\(load.runNumber % 10)" + String(format: "%03d0000000", worker)
                        )
                        return client
                    }
                }
                return try await group.reduce(into: [TesseraClient]()) { $0.append($1) }
            }
            // Node sync runs right after each sign-up; give stragglers a moment.
            try await Task.sleep(for: .seconds(1))
            let progress = self.progress
            let (results, start) = await measure(workers: devices.count, seconds: load.duration) { worker, _ in
                let device = devices[worker], local = NoLocalAuthentication()
                let token = progress
                    ? try? await device.authenticate(localAuthenticator: local, reason: "bench") { _ in }
                    : try? await device.authenticate(localAuthenticator: local, reason: "bench")
                return token != nil
            }
            printResult(results, concurrency: load.concurrency, since: start)
        }
    }

    /// Writes wrk request bodies for `POST /v1/rp/totp/verify`: for each of `count` bench users,
    /// the code of the current step and then of the next (users interleaved), all valid for the
    /// next 30 s. Users are `totp-NNNNN`, created by `tessera-bench totp-bodies --create`.
    struct TOTPBodies: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "totp-bodies", abstract: "Create TOTP bench users and/or write wrk bodies.")
        @Option(help: "Number of users.") var count = 20000
        @Option(help: "Index of the first user (disjoint ranges for runs within one 30-second step).") var first = 0
        @Option(help: "Client key the users belong to.") var clientKey: String
        @Option(help: "Output file (one JSON body per line).") var output: String
        @Flag(help: "Create the users first (directly in the server's storage; the server may be running).") var create = false
        @Option(help: "The server's data directory.") var dataDir = "./.tessera"
        @Option(help: "postgres://user:password@host:port/database instead of SQLite.") var databaseUrl: String?

        func run() async throws {
            if create {
                try await TOTPBenchUsers.create(dataDirectory: dataDir, databaseURL: databaseUrl, clientKey: clientKey, count: first + count)
            }
            let step = Int64(Date().timeIntervalSince1970) / 30
            var lines: [String] = []
            lines.reserveCapacity(count * 2)
            for offset in [Int64(0), 1] {
                for index in first..<(first + count) {
                    let totp = TOTP(secret: TOTPBenchUsers.secret(index))
                    lines.append(#"{"userKey":"totp-\#(String(format: "%05d", index))","code":"\#(totp.code(forStep: step + offset))"}"#)
                }
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: output, atomically: true, encoding: .utf8)
        }
    }
}

/// What every ceremony load generator takes.
struct LoadOptions: ParsableArguments {
    @Option(help: "Server URL.") var server: String
    @Option(help: "Client key.") var clientKey: String
    @Option(help: "Bundle identifier.") var bundleId = "dev.tessera.demo"
    @Option(help: "The server's data directory (sign-up codes are read from its development outbox).") var outbox: String
    @Option(help: "Concurrent ceremonies.") var concurrency = 16
    @Option(help: "Seconds to run.") var duration = 20
    @Option(help: "Prefix making user keys and addresses unique across runs.") var prefix = "b"
    @Option(help: "Run number 0–9, making phone numbers unique across runs.") var runNumber = 0

    func url() throws -> URL {
        guard let url = URL(string: server) else { throw ValidationError("--server is not a URL") }
        return url
    }

    func codes() -> OutboxTail { OutboxTail(path: OutboxFile(dataDirectory: outbox).path) }

    func client(_ url: URL) -> TesseraClient {
        TesseraClient(configuration: .init(serverURL: url, clientKey: clientKey, bundleIdentifier: bundleId), keyStore: MemoryKeyStore())
    }
}

/// Runs `ceremony` in `workers` concurrent loops for `seconds`, timing each call.
func measure(
    workers: Int, seconds: Int, _ ceremony: @escaping @Sendable (_ worker: Int, _ index: Int) async -> Bool
) async -> (results: [(ok: Bool, millis: Double)], start: ContinuousClock.Instant) {
    let run = await measureUntilExhausted(workers: workers, seconds: seconds) { worker, index in await ceremony(worker, index) }
    return (run.results, run.start)
}

/// ``measure(workers:seconds:_:)`` for a ceremony that draws on fixtures made beforehand: when one
/// call answers nil (its worker has none left), every loop stops and the run ends there, early, so that
/// a worker without fixtures never spins and nothing is counted for it; `exhaustedAt` says when.
func measureUntilExhausted(
    workers: Int, seconds: Int, _ ceremony: @escaping @Sendable (_ worker: Int, _ index: Int) async -> Bool?
) async -> (results: [(ok: Bool, millis: Double)], start: ContinuousClock.Instant, exhaustedAt: Duration?) {
    let start = ContinuousClock.now
    let deadline = start + .seconds(seconds)
    let exhausted = ExhaustedAt()
    let results = await withTaskGroup(of: [(ok: Bool, millis: Double)].self) { group in
        for worker in 0..<workers {
            group.addTask {
                var results: [(ok: Bool, millis: Double)] = []
                var index = 0
                while ContinuousClock.now < deadline, exhausted.value.withLock({ $0 }) == nil {
                    index += 1
                    let began = ContinuousClock.now
                    guard let ok = await ceremony(worker, index) else {
                        exhausted.value.withLock { $0 = $0 ?? (ContinuousClock.now - start) }
                        break
                    }
                    let elapsed = ContinuousClock.now - began
                    results.append((ok, elapsed.inMilliseconds))
                }
                return results
            }
        }
        return await group.reduce(into: [(ok: Bool, millis: Double)]()) { $0 += $1 }
    }
    return (results, start, exhausted.value.withLock { $0 })
}

/// When the first worker of ``measureUntilExhausted(workers:seconds:_:)`` ran out of fixtures.
private final class ExhaustedAt: Sendable {
    let value = Mutex<Duration?>(nil)
}

/// One sign-up through the SDK: OTP to `<name>@bench.example.com`, code from the development outbox,
/// verify, sign-up signed by a new device key.
func benchSignUp(_ client: TesseraClient, codes: OutboxTail, name: String, phone: String) async throws {
    let email = "\(name)@bench.example.com"
    try await client.requestSendOTPNumber(sendType: .email, sendTarget: email)
    let code = try await codes.code(for: email)
    guard case .valid(let token) = try await client.verifyOTPNumber(sendType: .email, sendTarget: email, otpNumber: code) else {
        throw ValidationError("sign-up code refused")
    }
    try await client.requestSignUp(userData: UserData(
        appVersion: "bench", token: "", email: email, phoneNumber: phone, userKey: name, name: "Bench User", authType: .none, os: .linux,
        disposeToken: token, agreeGccs: true, agreePerson: true, agreeDevice: true
    ), localAuthenticator: NoLocalAuthentication(), reason: "bench")
}

/// Prints the `RESULT {…}` line. With `exhaustedAt`, the run ended early because the fixtures ran out:
/// the rate is over the time until then, and the line says so (`"stopped":"out of fixtures"`).
func printResult(
    _ results: [(ok: Bool, millis: Double)], concurrency: Int, since start: ContinuousClock.Instant, exhaustedAt: Duration? = nil
) {
    if let exhaustedAt {
        FileHandle.standardError.write(Data("out of fixtures after \(exhaustedAt): the run stopped early; give it more users\n".utf8))
    }
    let elapsed = exhaustedAt ?? (ContinuousClock.now - start)
    let seconds = elapsed.inSeconds
    let good = results.filter(\.ok).map(\.millis).sorted()
    func percentile(_ p: Double) -> Double { good.isEmpty ? 0 : good[min(good.count - 1, Int(Double(good.count) * p))] }
    print(String(
        format: #"RESULT {"conc":%d,"ceremonies":%d,"failed":%d,"duration_s":%.2f,"rate":%.1f,"p50_ms":%.1f,"p99_ms":%.1f"#,
        concurrency, good.count, results.count - good.count, seconds, Double(good.count) / seconds, percentile(0.5), percentile(0.99)
    ) + (exhaustedAt == nil ? "}" : #","stopped":"out of fixtures"}"#))
}

/// Local authentication that always passes: the benchmark measures the server, not the user.
struct NoLocalAuthentication: LocalAuthenticator {
    func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult { LocalAuthResult() }
}

/// Follows the development outbox file and hands out the newest code per recipient.
actor OutboxTail {
    private var file: OutboxFile
    private var codes: [String: String] = [:]

    init(path: String) { file = OutboxFile(path: path) }

    func code(for recipient: String) async throws -> String {
        for _ in 0..<2000 {
            if let code = codes.removeValue(forKey: recipient) { return code }
            for entry in file.readNew() {
                if let code = entry.code { codes[entry.to] = code }
            }
            if let code = codes.removeValue(forKey: recipient) { return code }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ValidationError("no code for \(recipient)")
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    /// The duration in milliseconds, with its fraction.
    var inMilliseconds: Double { inSeconds * 1000 }
}
