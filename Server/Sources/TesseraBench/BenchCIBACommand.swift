import ArgumentParser
import AsyncHTTPClient
import Foundation
import Tessera
import TesseraCore

extension BenchCommand {
    /// `tessera-bench ciba`: OpenID CIBA requests to tokens in poll mode, the device approving at once: the client's
    /// `POST /oauth2/bc-authorize` → the device finds the request (it polls) and approves it (the node quorum) → the
    /// client's token request with the CIBA grant (its first poll: never `slow_down`) → the ID token checked through
    /// the JWKS. Each worker first (not measured) signs a user up through the SDK.
    struct CIBA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ciba", abstract: "CIBA poll-mode requests to tokens per second, the device approving.")
        @OptionGroup var load: LoadOptions
        @Option(help: "Client secret of the client (client_secret_basic).") var clientSecret: String
        @Option(name: .customLong("cpu-pid"), help: "A server process whose CPU time the measured phase is reported with (repeat for its nodes).")
        var cpuPids: [Int32] = []

        func run() async throws {
            let load = self.load
            let workers = try await OIDC.signUpWorkers(load, perWorker: 1)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let flow = try await OIDC.flow(load, http: http, clientSecret: clientSecret, redirectUri: "http://127.0.0.1:9/callback")
            let cpu = ServerCPU(pids: cpuPids), cpuBefore = cpu.seconds()
            let (results, start) = await measure(workers: load.concurrency, seconds: load.duration) { worker, _ in
                guard let user = workers[worker]?.devices.first else { return false }
                do {
                    try await flow.ciba(hint: user.email, device: user.device)
                    return true
                } catch {
                    FileHandle.standardError.write(Data("CIBA request failed: \(error)\n".utf8))
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

extension OIDCBenchFlow {
    /// One CIBA request in poll mode: asked, approved on `device`, its tokens fetched and the ID token checked.
    func ciba(hint: String, device: TesseraClient) async throws {
        let started = try await token(["scope": "openid", "login_hint": hint, "binding_message": "Bench"], path: "/oauth2/bc-authorize")
        guard let id = started["auth_req_id"] as? String else { throw Failure(description: "bc-authorize: no auth_req_id") }
        try await Self.approveOnDevice(device)
        let tokens = try await token(["grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": id])
        guard let idToken = tokens["id_token"] as? String else { throw Failure(description: "token: no id_token") }
        let claims = try await keys.verify(idToken, as: Claims.self)
        guard claims.iss.value == issuer, claims.aud.value.contains(clientId) else { throw Failure(description: "the ID token's iss or aud is wrong") }
    }
}
