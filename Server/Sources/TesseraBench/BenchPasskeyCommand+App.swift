import AsyncHTTPClient
import Foundation
import JWTKit
import Tessera
import TesseraCore
import TesseraSignIn
import TesseraSoftwareAuthenticator

extension BenchCommand.Passkeys {
    /// `--flow app`: passkey sign-ins as an app makes them through the SDK (`signInWithPasskey`): options → an
    /// assertion minted by the software authenticator → the result token, checked through the JWKS as the app's
    /// backend would. Each worker first (not measured) signs a user up and registers a passkey with `registerPasskey`.
    func runApp() async throws {
        let load = self.load
        let workers = try await BenchCommand.OIDC.signUpWorkers(load, perWorker: 1)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        let url = try load.url()
        let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
        let issuer = try await OIDCBenchFlow.issuer(http, base)
        let keys = try await JWTKeyCollection().add(jwksJSON: try await OIDCBenchFlow.text(http, base + "/.well-known/jwks.json"))
        let origin = try Self.origin(of: issuer)
        var providers: [Int: (TesseraClient, SoftwarePasskeyProvider)] = [:]
        for (worker, entry) in workers.sorted(by: { $0.key < $1.key }) {
            guard let user = entry.devices.first else { continue }
            let provider = SoftwarePasskeyProvider(SoftwareAuthenticator(origin: origin), recording: false)
            _ = try await user.device.registerPasskey(using: provider)
            providers[worker] = (user.device, provider)
        }
        let ready = providers
        let cpu = ServerCPU(pids: cpuPids), cpuBefore = cpu.seconds()
        let (results, start) = await measure(workers: load.concurrency, seconds: load.duration) { worker, _ in
            guard let (device, provider) = ready[worker] else { return false }
            do {
                let result = try await device.signInWithPasskey(using: provider)
                let claims = try await keys.verify(result.resultToken, as: ResultClaims.self)
                guard claims.iss.value == issuer, claims.deviceId == result.passkeyId else {
                    throw OIDCBenchFlow.Failure(description: "the result token names \(claims.deviceId), not the passkey \(result.passkeyId)")
                }
                return true
            } catch {
                FileHandle.standardError.write(Data("passkey sign-in (app) failed: \(error)\n".utf8))
                return false
            }
        }
        let cpuUsed = cpu.seconds() - cpuBefore
        printResult(results, concurrency: load.concurrency, since: start)
        if !cpuPids.isEmpty { ServerCPU.report(seconds: cpuUsed, operations: results.filter(\.ok).count) }
        try await http.shutdown()
    }
}
