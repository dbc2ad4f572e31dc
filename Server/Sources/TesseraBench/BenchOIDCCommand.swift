import ArgumentParser
import Synchronization
import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import Tessera
import TesseraCore

extension BenchCommand {
    /// `tessera-bench oidc`: OpenID Connect sign-ins over HTTP only, the way a browser and a relying
    /// party drive them: authorize (PKCE S256, state, nonce) → the hosted page's form → the user's
    /// device approves at once through the SDK → the page's status → complete (the redirect with the
    /// code) → token exchange (`client_secret_basic`) → ID token checked (ES256 through the JWKS, iss,
    /// aud, nonce). Users are signed up through the SDK first (not measured). The page limits
    /// identifier submissions per IP and per identifier (5 per 10 minutes), so each sign-in comes
    /// "from" its own address (`X-Forwarded-For`; run the server with `--http-trusted-proxies
    /// 127.0.0.1`) and each user signs in at most 5 times.
    struct OIDC: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "oidc", abstract: "OIDC sign-ins per second through the hosted page, a device approving.")
        @OptionGroup var load: LoadOptions
        @Option(help: "Client secret of the client (client_secret_basic).") var clientSecret: String
        @Option(help: "A redirect URI registered for the client (never called).") var redirectUri = "http://127.0.0.1:9/callback"
        @Option(help: "Users signed up first (each signs in at most 5 times; when they run out, the run stops early and says so).")
        var users = 1024
        @Option(name: .customLong("cpu-pid"), help: "A server process whose CPU time the measured phase is reported with (repeat for its nodes).")
        var cpuPids: [Int32] = []

        struct Worker: Sendable {
            var devices: [(email: String, device: TesseraClient)]
        }

        /// Signs up `perWorker` users per worker through the SDK (not measured).
        static func signUpWorkers(_ load: LoadOptions, perWorker: Int) async throws -> [Int: Worker] {
            let url = try load.url(), codes = load.codes()
            return try await withThrowingTaskGroup(of: (Int, Worker).self) { group in
                for worker in 0..<load.concurrency {
                    group.addTask {
                        var devices: [(email: String, device: TesseraClient)] = []
                        for slot in 0..<perWorker {
                            let name = "\(load.prefix)-o\(worker)-\(slot)", client = load.client(url)
                            try await benchSignUp(
                                client, codes: codes, name: name, phone: "+45\(load.runNumber % 10)" + String(format: "%03d%07d", worker, slot)
                            )
                            devices.append(("\(name)@bench.example.com", client))
                        }
                        return (worker, Worker(devices: devices))
                    }
                }
                return try await group.reduce(into: [Int: Worker]()) { $0[$1.0] = $1.1 }
            }
        }

        /// The browser and relying party of the sign-ins, with the server's JWKS and issuer.
        static func flow(_ load: LoadOptions, http: HTTPClient, clientSecret: String, redirectUri: String) async throws -> OIDCBenchFlow {
            let url = try load.url()
            let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            return OIDCBenchFlow(
                http: http, base: base, clientId: load.clientKey, clientSecret: clientSecret, redirectUri: redirectUri,
                keys: try await JWTKeyCollection().add(jwksJSON: try await OIDCBenchFlow.text(http, base + "/.well-known/jwks.json")),
                issuer: try await OIDCBenchFlow.issuer(http, base)
            )
        }

        func run() async throws {
            let load = self.load
            let workers = try await Self.signUpWorkers(load, perWorker: max(1, users / load.concurrency))
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let flow = try await Self.flow(load, http: http, clientSecret: clientSecret, redirectUri: redirectUri)
            let cpu = ServerCPU(pids: cpuPids), cpuBefore = cpu.seconds()
            // For a profiler started alongside: the measured phase begins now.
            FileHandle.standardError.write(Data("measuring\n".utf8))
            let (results, start, exhaustedAt) = await measureUntilExhausted(workers: load.concurrency, seconds: load.duration) { worker, index in
                // Out of users (each signs in at most 5 times): the run stops here, and says so.
                guard let devices = workers[worker]?.devices, (index - 1) / 5 < devices.count else { return nil }
                let user = devices[(index - 1) / 5]
                let address = "10.\(load.runNumber % 10).\(worker % 256).\(index % 256)"
                do {
                    try await flow.signIn(email: user.email, device: user.device, from: address)
                    return true
                } catch {
                    FileHandle.standardError.write(Data("sign-in failed: \(error)\n".utf8))
                    return false
                }
            }
            let cpuUsed = cpu.seconds() - cpuBefore
            printResult(results, concurrency: load.concurrency, since: start, exhaustedAt: exhaustedAt)
            if !cpuPids.isEmpty { ServerCPU.report(seconds: cpuUsed, operations: results.filter(\.ok).count) }
            try await http.shutdown()
        }
    }

    /// `tessera-bench oidc-refresh`: refresh-token grants per second (RFC 6749 §6 with rotation): each worker
    /// signs one user in with `offline_access` (not measured), then uses its refresh token, the next one the
    /// answer carries, and so on, each ID token checked through the JWKS.
    struct OIDCRefresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "oidc-refresh", abstract: "OIDC refresh-token grants per second (rotation).")
        @OptionGroup var load: LoadOptions
        @Option(help: "Client secret of the client (client_secret_basic).") var clientSecret: String
        @Option(help: "A redirect URI registered for the client (never called).") var redirectUri = "http://127.0.0.1:9/callback"
        @Option(name: .customLong("cpu-pid"), help: "A server process whose CPU time the measured phase is reported with (repeat for its nodes).")
        var cpuPids: [Int32] = []

        /// The refresh token each worker holds.
        final class Chains: Sendable {
            let tokens: Mutex<[Int: String]>
            init(_ tokens: [Int: String]) { self.tokens = Mutex(tokens) }
        }

        func run() async throws {
            let load = self.load
            let workers = try await OIDC.signUpWorkers(load, perWorker: 1)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let flow = try await OIDC.flow(load, http: http, clientSecret: clientSecret, redirectUri: redirectUri)
            var first: [Int: String] = [:]
            for (worker, entry) in workers {
                guard let user = entry.devices.first,
                      let token = try await flow.signIn(email: user.email, device: user.device, from: "10.9.\(worker % 256).1", offline: true)
                else { throw OIDCBenchFlow.Failure(description: "no refresh token for worker \(worker)") }
                first[worker] = token
            }
            let chains = Chains(first)
            let cpu = ServerCPU(pids: cpuPids), cpuBefore = cpu.seconds()
            let (results, start) = await measure(workers: load.concurrency, seconds: load.duration) { worker, _ in
                guard let token = chains.tokens.withLock({ $0[worker] }) else { return false }
                do {
                    let next = try await flow.refresh(token)
                    chains.tokens.withLock { $0[worker] = next }
                    return true
                } catch {
                    FileHandle.standardError.write(Data("refresh failed: \(error)\n".utf8))
                    return false
                }
            }
            let cpuUsed = cpu.seconds() - cpuBefore
            printResult(results, concurrency: load.concurrency, since: start)
            if !cpuPids.isEmpty { ServerCPU.report(seconds: cpuUsed, operations: results.filter(\.ok).count) }
            try await http.shutdown()
        }
    }
}
