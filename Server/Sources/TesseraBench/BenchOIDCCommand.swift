import ArgumentParser
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

        struct Worker: Sendable {
            var devices: [(email: String, device: TesseraClient)]
        }

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load, perWorker = max(1, users / load.concurrency)
            let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            let workers = try await withThrowingTaskGroup(of: (Int, Worker).self) { group in
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
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let flow = OIDCBenchFlow(
                http: http, base: base, clientId: load.clientKey, clientSecret: clientSecret, redirectUri: redirectUri,
                keys: try await JWTKeyCollection().add(jwksJSON: try await OIDCBenchFlow.text(http, base + "/.well-known/jwks.json")),
                issuer: try await OIDCBenchFlow.issuer(http, base)
            )
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
            printResult(results, concurrency: load.concurrency, since: start, exhaustedAt: exhaustedAt)
            try await http.shutdown()
        }
    }
}
