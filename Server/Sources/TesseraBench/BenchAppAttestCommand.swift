import ArgumentParser
import Crypto
import Foundation
import Synchronization
import Tessera
import TesseraCore

extension BenchCommand {
    /// `tessera-bench app-attest`: the server CPU of App Attest (issue 41) per operation, through the SDK's
    /// `requestAppAttestation` and `requestAppAttestAssertion` with a provider that stands in for `DCAppAttestService`:
    /// device keys made and assertions signed here, attestation objects (certificate chains to a test root) made by
    /// bench/appattest_mint.py under the root the server was given (`--app-attest-roots`). Devices sign up through the
    /// SDK first (not measured). Then, each phase timed on its own with the server's CPU read from /proc around it:
    /// `signed-call` (a signed `GET /v1/devices/me`: a device call without App Attest), `challenge` (the challenge call
    /// alone), `attestation` (challenge + attestation, one per device), `assertion` (challenge + assertion, counters
    /// growing). Prints one `PHASE {…}` JSON line per phase. Used by bench/app-attest.sh.
    struct AppAttest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "app-attest", abstract: "Server CPU per App Attest attestation and assertion, beside a signed call and the challenge alone."
        )
        @OptionGroup var load: LoadOptions
        @Option(help: "Devices to sign up and attest (one attestation each).") var devices = 300
        @Option(help: "Assertions (and signed calls, and challenges) per device.") var rounds = 10
        @Option(help: "Alternated pairs of plain and App Attest phases (sign-ups, logins) whose differences are reported.") var pairs = 5
        @Option(help: "Sign-ups of each kind (plain, attested) over the pairs; at least --devices (the default).") var enrolments: Int?
        @Option(help: "Python with `cryptography` and `cbor2`.") var python = "python3"
        @Option(help: "bench/appattest_mint.py.") var minter: String
        @Option(help: "The directory `appattest_mint.py init` wrote (the server's root is its root.pem).") var caDir: String
        @Option(help: "The environment of the client's App Attest settings (development or production).") var environment = "development"
        @Option(help: "Team ID the attestations are made for (mint.py's).") var teamId = "TESTTEAM42"
        @Option(help: "Bundle ID the attestations are made for (mint.py's).") var appBundleId = "org.example.tessera"
        @Option(help: "Seconds after each phase before the server's CPU is read (work it left behind, e.g. audit chaining).") var settle = 1
        @Option(name: .customLong("cpu-pid"), help: "A server process whose CPU time each phase is reported with.")
        var cpuPids: [Int32] = []
        @Option(name: .customLong("node-cpu-pid"), help: "A verifier node process whose CPU time each phase reports apart (repeat for each).")
        var nodeCpuPids: [Int32] = []

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load
            let minter = try AttestationMinter(python: python, script: minter, caDir: caDir, environment: environment)
            defer { minter.stop() }
            let rpIdHash = Data(SHA256.hash(data: Data("\(teamId).\(appBundleId)".utf8)))
            let started = ContinuousClock.now
            let clients = try await inBatches(count: devices, width: load.concurrency) { index in
                let client = load.client(url)
                try await benchSignUp(
                    client, codes: codes, name: "\(load.prefix)-\(index)",
                    phone: "+46\(load.runNumber % 10)" + String(format: "%03d%07d", index / 10_000_000 % 1000, index % 10_000_000)
                )
                return (client, BenchAppAttestProvider(minter: minter, rpIdHash: rpIdHash))
            }
            FileHandle.standardError.write(Data("signed up \(clients.count) devices in \(ContinuousClock.now - started)\n".utf8))
            let count = clients.count, rounds = self.rounds
            try await phase("signed-call", count: count * rounds) { index in
                _ = try await clients[index % count].0.deviceInfo()
            }
            try await phase("challenge", count: count * rounds) { index in
                // generateKey fails after the challenge call: the challenge alone reaches the server.
                do {
                    _ = try await clients[index % count].0.requestAppAttestation(using: NoKeyProvider())
                    throw ValidationError("the attestation went through without a key")
                } catch let error as TesseraError where error.code == .localFailure {}
            }
            try await phase("attestation", count: count) { index in
                guard case .attested(let state) = try await clients[index].0.requestAppAttestation(using: clients[index].1), state.attested else {
                    throw ValidationError("not attested")
                }
            }
            try await phase("assertion", count: count * rounds) { index in
                let (client, provider) = clients[index % count]
                guard case .asserted(let result) = try await client.requestAppAttestAssertion(clientData: ["action": "bench"], using: provider),
                      result.counter >= 1
                else { throw ValidationError("no assertion") }
            }
            try await enrolmentsAndLogins(url: url, codes: codes, rpIdHash: rpIdHash, minter: minter)
        }

        /// Sign-ups without and with an attestation (`useAppAttest`: the challenge derived from the dispose token, Apple's
        /// attestation verified in the sign-up), then the same devices' logins without and with an assertion in the
        /// approval: the differences are what App Attest adds to an enrolment and to an assertion-checked call.
        func enrolmentsAndLogins(url: URL, codes: OutboxTail, rpIdHash: Data, minter: AttestationMinter) async throws {
            let load = self.load, count = devices, enrolled = max(enrolments ?? devices, devices)
            let plain = (0..<enrolled).map { _ in load.client(url) }
            let attested = (0..<enrolled).map { _ in (load.client(url), BenchAppAttestProvider(minter: minter, rpIdHash: rpIdHash)) }
            for (client, provider) in attested { client.useAppAttest(provider) }
            // Sign-ups without and with an attestation, alternated in `pairs` rounds of a share of the sign-ups each; the
            // logins below are the first `devices` attested ones'.
            let share = (enrolled + pairs - 1) / pairs
            // Each pair runs its two phases in the other order than the pair before (plain first in odd pairs): a machine
            // that gets busier (or quieter) during the run then moves the pairs' differences both ways, not one.
            for round in 1...pairs {
                let range = ((round - 1) * share)..<min(enrolled, round * share)
                let plainFirst = !round.isMultiple(of: 2)
                for attestedNow in [!plainFirst, plainFirst] {
                    if attestedNow {
                        try await phase("enrolment-attested-\(round)", count: range.count) { offset in
                            let index = range.lowerBound + offset
                            try await benchSignUp(attested[index].0, codes: codes, name: "\(load.prefix)-a\(index)", phone: Self.phone(load, 2, index))
                            guard try attested[index].0.appAttestKeyId() != nil else { throw ValidationError("enrolled without an attestation") }
                        }
                    } else {
                        try await phase("enrolment-plain-\(round)", count: range.count) { offset in
                            let index = range.lowerBound + offset
                            try await benchSignUp(plain[index], codes: codes, name: "\(load.prefix)-p\(index)", phone: Self.phone(load, 1, index))
                        }
                    }
                }
            }
            // Logins without and with an assertion, alternated `pairs` times (the order turned at each pair, as above): the
            // difference is small beside a whole ceremony, so each reading is paired with its neighbour on the same machine state.
            for round in 1...pairs {
                let plainFirst = !round.isMultiple(of: 2)
                for asserted in [!plainFirst, plainFirst] {
                    for (client, provider) in attested { client.useAppAttest(asserted ? provider : nil) }
                    try await phase("login-\(asserted ? "asserted" : "plain")-\(round)", count: count * rounds) { index in
                        _ = try await attested[index % count].0.authenticate(localAuthenticator: NoLocalAuthentication(), reason: "bench")
                    }
                }
            }
            // The logins did assert: the first device's next assertion counts on from theirs.
            guard case .asserted(let next) = try await attested[0].0.requestAppAttestAssertion(using: attested[0].1), next.counter > rounds else {
                throw ValidationError("the logins carried no assertions")
            }
        }

        /// A phone number of its own for device `index` of group `group`.
        static func phone(_ load: LoadOptions, _ group: Int, _ index: Int) -> String {
            "+47\(load.runNumber % 10)\(group)" + String(format: "%02d%07d", index / 10_000_000 % 100, index % 10_000_000)
        }

        /// Runs `body` for 0..<count, `concurrency` at a time, and prints its `PHASE` line with the server's CPU and the
        /// nodes' apart.
        func phase(_ name: String, count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
            let firstError = FirstError(), cpu = ServerCPU(pids: cpuPids), nodes = ServerCPU(pids: nodeCpuPids)
            let cpuBefore = cpu.seconds(), nodesBefore = nodes.seconds(), start = ContinuousClock.now, began = Self.monotonic()
            let results = try await inBatches(count: count, width: load.concurrency) { index in
                let began = ContinuousClock.now
                do {
                    try await body(index)
                    return (ok: true, millis: (ContinuousClock.now - began).inMilliseconds)
                } catch {
                    firstError.value.withLock { $0 = $0 ?? "\(error)" }
                    return (ok: false, millis: 0)
                }
            }
            let seconds = (ContinuousClock.now - start).inSeconds, ended = Self.monotonic()
            try await Task.sleep(for: .seconds(settle))
            let cpuUsed = cpu.seconds() - cpuBefore, nodesUsed = nodes.seconds() - nodesBefore
            if let error = firstError.value.withLock({ $0 }) { FileHandle.standardError.write(Data("\(name): first failure: \(error)\n".utf8)) }
            let good = results.filter(\.ok).map(\.millis).sorted()
            func percentile(_ p: Double) -> Double { good.isEmpty ? 0 : good[min(good.count - 1, Int(Double(good.count) * p))] }
            print(String(
                format: #"PHASE {"phase":"\#(name)","conc":%d,"ops":%d,"failed":%d,"duration_s":%.2f,"rate":%.1f,"p50_ms":%.2f,"p99_ms":%.2f,"server_cpu_s":%.3f,"cpu_ms_per_op":%.4f,"nodes_cpu_ms_per_op":%.4f,"began_s":%.6f,"ended_s":%.6f}"#,
                load.concurrency, good.count, results.count - good.count, seconds, Double(good.count) / seconds, percentile(0.5),
                percentile(0.99), cpuUsed, good.isEmpty ? 0 : cpuUsed * 1000 / Double(good.count),
                good.isEmpty ? 0 : nodesUsed * 1000 / Double(good.count), began, ended
            ))
        }

        /// CLOCK_MONOTONIC in seconds: the phase's load began and ended (`began_s`, `ended_s`), on the clock that
        /// `perf record -k CLOCK_MONOTONIC` stamps its samples with, so that a profile of the server can be cut by phase.
        static func monotonic() -> Double {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        }
    }
}

/// The first failure of a phase.
private final class FirstError: Sendable {
    let value = Mutex<String?>(nil)
}

/// A provider that cannot make a key: `requestAppAttestation` stops after its challenge call.
private struct NoKeyProvider: AppAttestProvider {
    var isSupported: Bool { true }
    func generateKey() async throws -> String { throw TesseraError(code: .localFailure, message: "bench: no key") }
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data { Data() }
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data { Data() }
}

/// `DCAppAttestService` for one bench device: a P-256 key made here, its attestation object from
/// ``AttestationMinter``, assertions (`{"signature", "authenticatorData"}`, CBOR) signed here with a growing counter.
final class BenchAppAttestProvider: AppAttestProvider {
    private struct Key {
        var privateKey: P256.Signing.PrivateKey
        var counter: UInt32
    }

    private let minter: AttestationMinter
    private let rpIdHash: Data
    private let keys = Mutex<[String: Key]>([:])

    init(minter: AttestationMinter, rpIdHash: Data) {
        self.minter = minter
        self.rpIdHash = rpIdHash
    }

    var isSupported: Bool { true }

    func generateKey() async throws -> String {
        let key = P256.Signing.PrivateKey()
        let keyId = Data(SHA256.hash(data: key.publicKey.x963Representation)).base64EncodedString()
        keys.withLock { $0[keyId] = Key(privateKey: key, counter: 0) }
        return keyId
    }

    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        guard let key = keys.withLock({ $0[keyId] }) else { throw ValidationError("unknown key \(keyId)") }
        return try minter.attestationObject(privateKey: key.privateKey.rawRepresentation, clientDataHash: clientDataHash)
    }

    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        guard let next = keys.withLock({ keys -> Key? in
            guard var key = keys[keyId] else { return nil }
            key.counter += 1
            keys[keyId] = key
            return key
        }) else { throw ValidationError("unknown key \(keyId)") }
        let key = next.privateKey, counter = next.counter
        var authenticatorData = rpIdHash
        authenticatorData.append(0x40)
        withUnsafeBytes(of: counter.bigEndian) { authenticatorData.append(contentsOf: $0) }
        let nonce = Data(SHA256.hash(data: authenticatorData + clientDataHash))
        let signature = try key.signature(for: nonce).derRepresentation
        var cbor = Data([0xA2])
        cbor += Self.text("signature") + Self.bytes(signature) + Self.text("authenticatorData") + Self.bytes(authenticatorData)
        return cbor
    }

    /// A CBOR text string (shorter than 24 bytes).
    private static func text(_ string: String) -> Data { Data([0x60 | UInt8(string.utf8.count)]) + Data(string.utf8) }

    /// A CBOR byte string (shorter than 256 bytes).
    private static func bytes(_ data: Data) -> Data { (data.count < 24 ? Data([0x40 | UInt8(data.count)]) : Data([0x58, UInt8(data.count)])) + data }
}

/// bench/appattest_mint.py `mint` as a child process: one attestation object per request line.
final class AttestationMinter: Sendable {
    private struct Pipes {
        var process: Process
        var input: FileHandle
        var output: FileHandle
        var buffer = Data()
    }

    private let pipes: Mutex<Pipes>
    private let environment: String

    init(python: String, script: String, caDir: String, environment: String) throws {
        let process = Process(), input = Pipe(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "mint", caDir]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        pipes = Mutex(Pipes(process: process, input: input.fileHandleForWriting, output: output.fileHandleForReading))
        self.environment = environment
    }

    /// The attestation object of the key `privateKey` (raw P-256 scalar) over `clientDataHash`.
    func attestationObject(privateKey: Data, clientDataHash: Data) throws -> Data {
        let line = try pipes.withLock { pipes in
            try pipes.input.write(contentsOf: Data("\(privateKey.hex) \(clientDataHash.hex) \(environment)\n".utf8))
            while true {
                if let newline = pipes.buffer.firstIndex(of: 0x0A) {
                    let line = pipes.buffer[pipes.buffer.startIndex..<newline]
                    pipes.buffer = Data(pipes.buffer[(newline + 1)...])
                    return String(decoding: line, as: UTF8.self)
                }
                let more = pipes.output.availableData
                guard !more.isEmpty else { throw ValidationError("appattest_mint.py ended") }
                pipes.buffer += more
            }
        }
        var object = Data(capacity: line.utf8.count / 2), digits = line.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            guard let byte = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { throw ValidationError("not hex from appattest_mint.py") }
            object.append(byte)
        }
        return object
    }

    /// Ends the child process.
    func stop() {
        pipes.withLock { pipes in
            try? pipes.input.close()
            pipes.process.waitUntilExit()
        }
    }
}

extension Data {
    /// Lowercase hex.
    fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
