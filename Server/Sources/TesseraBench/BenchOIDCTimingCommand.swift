import ArgumentParser
import AsyncHTTPClient
import Foundation
import Tessera
import TesseraCore

extension BenchCommand {
    /// `tessera-bench oidc-timing`: whether the hosted page's identifier POST takes longer for an
    /// account that exists than for one that does not. Signs up `--users` users (each with an active
    /// device), then times `--samples` identifier POSTs of each kind, one at a time and alternating
    /// (known, unknown, known, …) so that drift affects both alike; only the POST is timed, not the
    /// authorize page before it. Prints the medians, the 90th percentiles and the ratio of the medians.
    /// Like `oidc`, each POST comes "from" its own address (run the server with
    /// `--http-trusted-proxies 127.0.0.1`) and each known user is named at most 5 times (the page's limits).
    /// With `--ciba-secret` it times CIBA's backchannel authentication request (`POST /oauth2/bc-authorize` with a
    /// `login_hint`, `client_secret_basic`) instead: the same question for the backchannel.
    struct OIDCTiming: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "oidc-timing", abstract: "Median time of the hosted page's identifier POST, known vs unknown account."
        )
        @OptionGroup var load: LoadOptions
        @Option(help: "A redirect URI registered for the client (never called).") var redirectUri = "http://127.0.0.1:9/callback"
        @Option(help: "Identifier POSTs timed per kind (known, unknown).") var samples = 200
        @Option(help: "Untimed pairs first (warm-up).") var warmup = 20
        @Option(help: "Time CIBA's bc-authorize with this client secret instead of the page's identifier POST.") var cibaSecret: String?

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load
            let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            let users = (samples + warmup + 4) / 5
            var emails: [String] = []
            for slot in 0..<users {
                let name = "\(load.prefix)-t\(slot)"
                try await benchSignUp(load.client(url), codes: codes, name: name, phone: "+43\(load.runNumber % 10)" + String(format: "%010d", slot))
                emails.append("\(name)@bench.example.com")
            }
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let flow = OIDCBenchFlow(
                http: http, base: base, clientId: load.clientKey, clientSecret: cibaSecret ?? "", redirectUri: redirectUri, keys: .init(), issuer: ""
            )
            var known: [Double] = [], unknown: [Double] = []
            for index in 0..<(samples + warmup) {
                for isKnown in [true, false] {
                    let identifier = isKnown ? emails[index / 5] : "\(load.prefix)-nobody-\(index)@bench.example.com"
                    let address = "10.\(load.runNumber % 10).\(index / 256 % 256).\(index % 256)"
                    if cibaSecret != nil {
                        let began = ContinuousClock.now
                        let started = try await flow.token(
                            ["scope": "openid", "login_hint": identifier, "binding_message": "Timing"], path: "/oauth2/bc-authorize"
                        )
                        let elapsed = ContinuousClock.now - began
                        guard started["auth_req_id"] is String else { throw ValidationError("bc-authorize gave no auth_req_id") }
                        guard index >= warmup else { continue }
                        let millis = elapsed.inMilliseconds
                        if isKnown { known.append(millis) } else { unknown.append(millis) }
                        continue
                    }
                    let page = try await flow.openPage(
                        challenge: PKCE.challenge(of: PKCE.randomToken()), state: "timing", nonce: "timing", from: address
                    )
                    let began = ContinuousClock.now
                    let answer = try await flow.identify(page, identifier: identifier, from: address)
                    let elapsed = ContinuousClock.now - began
                    guard answer.status == 200 else { throw ValidationError("identify answered HTTP \(answer.status): \(answer.body.prefix(300))") }
                    guard index >= warmup else { continue }
                    let millis = elapsed.inMilliseconds
                    if isKnown { known.append(millis) } else { unknown.append(millis) }
                }
            }
            try await http.shutdown()
            func percentile(_ values: [Double], _ p: Double) -> Double {
                let sorted = values.sorted()
                return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
            }
            let ratio = percentile(known, 0.5) / max(percentile(unknown, 0.5), 0.001)
            print(String(
                format: #"RESULT {"samples":%d,"known_p50_ms":%.3f,"unknown_p50_ms":%.3f,"known_p90_ms":%.3f,"unknown_p90_ms":%.3f,"ratio_p50":%.3f}"#,
                samples, percentile(known, 0.5), percentile(unknown, 0.5), percentile(known, 0.9), percentile(unknown, 0.9), ratio
            ))
        }
    }
}
