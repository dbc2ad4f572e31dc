import ArgumentParser
import AsyncHTTPClient
import Foundation

/// `tessera probe URL`: GET one URL and exit 0 on a 2xx answer, 1 on another answer, 3 when nothing answers — the
/// container image's health check, which has neither curl nor wget.
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "GET a URL (a health check): exit 0 on 2xx, 1 on another status, 3 when nothing answers."
    )
    @Argument(help: "The URL, for example http://127.0.0.1:8080/healthz.") var url: String
    @Option(help: "Seconds to wait for the answer.") var timeout = 3

    func validate() throws {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw ValidationError("the URL must be http(s)://host[:port]/path, not \(url)")
        }
        guard (1...60).contains(timeout) else { throw ValidationError("--timeout must be 1 to 60 seconds") }
    }

    func run() async throws {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(Int64(timeout))))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let status: Int?
        do {
            status = Int(try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(Int64(timeout))).status.code)
        } catch {
            status = nil
        }
        try? await client.shutdown()
        guard let status else { throw CLIFailure.local("nothing answered at \(url)") }
        guard (200..<300).contains(status) else { throw CLIFailure(status: CLIFailure.refused, message: "\(url) answered HTTP \(status)") }
        print("\(url): HTTP \(status)")
    }
}
