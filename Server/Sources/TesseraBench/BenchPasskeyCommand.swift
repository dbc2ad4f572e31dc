import ArgumentParser
import AsyncHTTPClient
import Foundation
import Synchronization
import Tessera
import TesseraCore
import TesseraSoftwareAuthenticator
import TesseraSignIn

extension BenchCommand {
    /// `tessera-bench passkeys`: OpenID Connect sign-ins by passkey, over HTTP only, as a browser and a relying
    /// party drive them: authorize (PKCE S256) → the hosted page → `passkey/options` → an assertion minted by a
    /// software authenticator in this process → `passkey` → the code exchanged → the ID token checked through
    /// the JWKS. Each worker first (not measured) signs a user up through the SDK, signs in once with the
    /// phone, and adds a passkey on the page's offer (the client must have `--offer-passkeys`, and the server an
    /// issuer browsers accept as an RP ID: `--auth-issuer http://localhost:PORT`).
    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "passkeys", abstract: "OIDC sign-ins per second by passkey (software authenticator).")
        @OptionGroup var load: LoadOptions
        @Option(help: "Client secret of the client (client_secret_basic).") var clientSecret: String
        @Option(help: "A redirect URI registered for the client (never called).") var redirectUri = "http://127.0.0.1:9/callback"
        @Option(name: .customLong("cpu-pid"), help: "A server process whose CPU time the measured phase is reported with (repeat for its nodes).")
        var cpuPids: [Int32] = []
        @Option(help: "oidc: the hosted page and the token endpoint (4 calls); app: the SDK's signInWithPasskey, options → assertion → result token (2 calls).")
        var flow = "oidc"

        func validate() throws {
            guard ["oidc", "app"].contains(flow) else { throw ValidationError("--flow must be oidc or app, not \(flow)") }
        }

        /// Each worker's authenticator, its counter moving with every assertion.
        final class Authenticators: Sendable {
            let all: Mutex<[Int: SoftwareAuthenticator]>
            init(_ all: [Int: SoftwareAuthenticator]) { self.all = Mutex(all) }
        }

        struct Options: Decodable {
            var challengeId: String
            var publicKey: PasskeyJSON.RequestOptions
        }

        struct CreationOptions: Decodable {
            var challengeId: String
            var publicKey: PasskeyJSON.CreationOptions
        }

        static func json(_ value: some Encodable) throws -> String { String(decoding: try JSONEncoder().encode(value), as: UTF8.self) }

        /// A phone-approved sign-in whose page offers a passkey: the authenticator creates it, and the page goes on.
        static func addPasskey(
            _ flow: OIDCBenchFlow, email: String, device: TesseraClient, origin: String, from address: String
        ) async throws -> SoftwareAuthenticator {
            let started = try await flow.start(from: address)
            let completeURL = try await flow.approve(started, email: email, device: device, from: address)
            let offer = try await flow.send(flow.base + completeURL, from: address)
            guard offer.status == 200, offer.body.contains("add-passkey") else {
                throw OIDCBenchFlow.Failure(description: "no passkey offer after the approval (HTTP \(offer.status)): set the client's --offer-passkeys")
            }
            let answer = try await flow.send(flow.base + started.requestPath + "/passkey/registration/options", form: ["csrf": started.csrf], from: address)
            let options = try JSONDecoder().decode(CreationOptions.self, from: Data(answer.body.utf8))
            var authenticator = SoftwareAuthenticator(origin: origin)
            let created = try json(authenticator.create(options.publicKey))
            let stored = try await flow.send(
                flow.base + started.requestPath + "/passkey/registration",
                form: ["csrf": started.csrf, "challengeId": options.challengeId, "credential": created], from: address
            )
            guard stored.status == 201 else { throw OIDCBenchFlow.Failure(description: "registration: HTTP \(stored.status) \(stored.body)") }
            authenticator.counter = 0
            let done = try await flow.send(flow.base + completeURL + "&passkey=offered", from: address)
            guard done.status == 302, let location = done.location else { throw OIDCBenchFlow.Failure(description: "complete: HTTP \(done.status)") }
            try await flow.exchange(started, location: location)
            return authenticator
        }

        /// One passkey sign-in: the page, the options, the assertion, the code, the tokens.
        static func signIn(_ flow: OIDCBenchFlow, authenticator: inout SoftwareAuthenticator, from address: String) async throws {
            let started = try await flow.start(from: address)
            let answer = try await flow.send(flow.base + started.requestPath + "/passkey/options", form: ["csrf": started.csrf], from: address)
            guard answer.status == 200 else { throw OIDCBenchFlow.Failure(description: "options: HTTP \(answer.status) \(answer.body)") }
            let options = try JSONDecoder().decode(Options.self, from: Data(answer.body.utf8))
            let assertion = try json(try authenticator.get(options.publicKey))
            let signedIn = try await flow.send(
                flow.base + started.requestPath + "/passkey",
                form: ["csrf": started.csrf, "challengeId": options.challengeId, "credential": assertion], from: address
            )
            guard signedIn.status == 200, let location = (try? JSONDecoder().decode([String: String].self, from: Data(signedIn.body.utf8)))?["location"] else {
                throw OIDCBenchFlow.Failure(description: "passkey: HTTP \(signedIn.status) \(signedIn.body)")
            }
            try await flow.exchange(started, location: location)
        }

        func run() async throws {
            if flow == "app" { return try await runApp() }
            let load = self.load
            let workers = try await OIDC.signUpWorkers(load, perWorker: 1)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let flow = try await OIDC.flow(load, http: http, clientSecret: clientSecret, redirectUri: redirectUri)
            let origin = try Self.origin(of: flow.issuer)
            var made: [Int: SoftwareAuthenticator] = [:]
            for (worker, entry) in workers.sorted(by: { $0.key < $1.key }) {
                guard let user = entry.devices.first else { continue }
                made[worker] = try await Self.addPasskey(flow, email: user.email, device: user.device, origin: origin, from: "10.8.\(worker % 256).1")
            }
            let authenticators = Authenticators(made)
            let cpu = ServerCPU(pids: cpuPids), cpuBefore = cpu.seconds()
            let (results, start) = await measure(workers: load.concurrency, seconds: load.duration) { worker, index in
                guard var authenticator = authenticators.all.withLock({ $0[worker] }) else { return false }
                do {
                    try await Self.signIn(flow, authenticator: &authenticator, from: "10.7.\(worker % 256).\(index % 256)")
                    authenticators.all.withLock { $0[worker] = authenticator }
                    return true
                } catch {
                    FileHandle.standardError.write(Data("passkey sign-in failed: \(error)\n".utf8))
                    return false
                }
            }
            let cpuUsed = cpu.seconds() - cpuBefore
            printResult(results, concurrency: load.concurrency, since: start)
            if !cpuPids.isEmpty { ServerCPU.report(seconds: cpuUsed, operations: results.filter(\.ok).count) }
            try await http.shutdown()
        }

        /// `scheme://host[:port]` of the issuer: the origin the authenticator's client data names.
        static func origin(of issuer: String) throws -> String {
            guard let url = URLComponents(string: issuer), let scheme = url.scheme, let host = url.host else {
                throw OIDCBenchFlow.Failure(description: "the issuer \(issuer) is not a URL")
            }
            return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        }
    }
}
