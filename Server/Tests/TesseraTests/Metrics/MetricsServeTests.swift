import AsyncHTTPClient
import Foundation
import Testing
import TesseraCore
import TesseraTestSupport

/// `tessera serve` with `--metrics-listen`, `--metrics-token` and `--log-format json`: `/metrics` is
/// on its own listener (not on the public port), asks for the token, and every log line is JSON, the embedded
/// node's too (under its own label).
@Suite("Metrics: tessera serve")
struct MetricsServeTests {
    @Test("the metrics listener serves /metrics with its token only; the public port does not; log lines are JSON objects, the embedded node's under the label tessera-node")
    func serve() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let port = try NodeQuorumEndToEndTests.freePort(), metricsPort = try NodeQuorumEndToEndTests.freePort()
        let token = "mt_serve-test-token"
        let logPath = base + "/stderr.log"
        let server = try ChildProcess(
            binary.path,
            [
                "serve", "--port", "\(port)", "--data-dir", base + "/data", "--nodes-embedded", "1", "--log-format", "json",
                "--metrics-listen", "127.0.0.1:\(metricsPort)", "--metrics-token", token,
            ],
            directory: base, stdout: .null, stderr: .file(logPath)
        )
        defer { server.signal(SIGKILL) }

        @Sendable func get(_ url: String, bearer: String? = nil) async -> (status: UInt, body: String)? {
            var request = HTTPClientRequest(url: url)
            if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
            guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(5)),
                  let body = try? await response.body.collect(upTo: 1 << 20)
            else { return nil }
            return (response.status.code, String(buffer: body))
        }
        let scraped = await eventually { await get("http://127.0.0.1:\(metricsPort)/metrics", bearer: token) }
        let scrape = try #require(scraped, "the metrics listener did not come up")
        #expect(scrape.status == 200 && scrape.body.contains("tessera_logins_total{outcome=\"completed\"} 0"), "\(scrape.body.prefix(400))")
        let refused = await get("http://127.0.0.1:\(metricsPort)/metrics", bearer: "wrong")
        #expect(refused?.status == 401 && refused?.body.contains("\"code\":\(ErrorCode.metricsUnauthorized.rawValue)") == true, "\(String(describing: refused))")
        #expect(await get("http://127.0.0.1:\(port)/metrics", bearer: token)?.status == 404)

        server.terminate()
        _ = await server.exited()
        let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains("metrics listener") }, "\(lines)")
        // The embedded node's lines (it writes to the server's standard error) are JSON too, under its own label.
        #expect(lines.contains { $0.contains(#""label":"tessera-node""#) }, "\(lines)")
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["timestamp"] is String && object?["level"] is String && object?["label"] is String && object?["message"] is String, "\(line)")
            #expect(!line.contains(token), "\(line)")
        }
    }
}
