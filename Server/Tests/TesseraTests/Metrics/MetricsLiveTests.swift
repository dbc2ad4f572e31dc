import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Hummingbird
import HummingbirdTesting
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// Issue 15's Done-when for metrics: `/metrics` on its own listener parses with prometheus-client's
/// parser, and its counters move with a scripted login by exactly what the login did.
@Suite("Metrics: /metrics on a live server")
struct MetricsLiveTests {
    static let bundle = "com.example.metrics"
    static let token = "mt_metrics-test-token"

    /// One parsed sample.
    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses `text` with prometheus-client (TESSERA_TEST_PYTHON; without it the test fails naming it).
    static func parse(_ text: String) async throws -> [Sample] {
        let python = try TestRequirements.python(importing: ["prometheus_client"], for: "parsing /metrics with prometheus-client")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scrape-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/prometheus_parse.py").path
        let parsed = try await DeviceCLITests.run(URL(fileURLWithPath: python), [fixture, file.path])
        try #require(parsed.status == 0, "prometheus-client refused the scrape: \(parsed.output)")
        let json = try #require(parsed.output.split(separator: "\n").last(where: { $0.hasPrefix("[") }), "\(parsed.output)")
        return try JSONDecoder().decode([Sample].self, from: Data(json.utf8))
    }

    /// The sum of the samples named `name` whose labels include `labels`.
    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }.map(\.value).reduce(0, +)
    }

    @Test("a login moves the login counter and the login routes' request counters by one each; the token is required")
    func scriptedLogin() async throws {
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.metricsToken = Self.token }) { runtime, client, url in
            let metricsApp = Application(router: runtime.makeMetricsRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await metricsApp.test(.live) { metrics in
                func scrape(_ authorization: String? = "Bearer \(Self.token)") async throws -> (status: HTTPResponse.Status, type: String?, body: String) {
                    var headers = HTTPFields()
                    if let authorization { headers[.authorization] = authorization }
                    let response = try await metrics.execute(uri: "/metrics", method: .get, headers: headers)
                    return (response.status, response.headers[.contentType], String(buffer: response.body))
                }
                // The token is required: none or a wrong one is a 401 problem with its own code.
                for authorization in [nil, "Bearer wrong", "Basic \(Self.token)"] {
                    let refused = try await scrape(authorization)
                    #expect(refused.status == .unauthorized && refused.type == "application/problem+json", "\(refused)")
                    #expect(refused.body.contains("\"code\":\(ErrorCode.metricsUnauthorized.rawValue)"), "\(refused.body)")
                }

                let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "metrics-user", bundleId: Self.bundle)
                let first = try await scrape()
                #expect(first.status == .ok && first.type?.hasPrefix("text/plain; version=0.0.4") == true)
                let token = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in")
                #expect(try await runtime.tokens.verify(token).sub.value == "metrics-user")
                let second = try await scrape()
                #expect(second.status == .ok)

                let before = try await Self.parse(first.body), after = try await Self.parse(second.body)
                func moved(_ name: String, _ labels: [String: String]) -> Double {
                    Self.value(after, name, labels) - Self.value(before, name, labels)
                }
                #expect(moved("tessera_logins_total", ["outcome": "completed"]) == 1)
                #expect(moved("tessera_logins_total", ["outcome": "failed"]) == 0)
                let routes = [
                    ("/v1/auth/channels", "201"), ("/v1/auth/channels/{channelId}/start", "200"), ("/v1/auth/channels/{channelId}/result", "200"),
                ]
                for (route, status) in routes {
                    let labels = ["route": route, "method": "POST", "status": status]
                    #expect(moved("tessera_http_requests_total", labels) == 1, "\(route)")
                    #expect(
                        moved("tessera_http_request_duration_seconds_count", ["route": route, "method": "POST", "status_class": "2xx"]) == 1,
                        "\(route)"
                    )
                }
                // Each node that attested was timed (a quorum of 2 at least), none failed.
                #expect(moved("tessera_node_attestation_duration_seconds_count", [:]) >= 2)
                #expect(moved("tessera_node_attestation_failures_total", [:]) == 0)
                // The enrolment's code went out by e-mail and the courier's queue is empty.
                #expect(Self.value(after, "tessera_otp_sent_total", ["channel": "email"]) >= 1)
                #expect(Self.value(after, "tessera_otp_send_failures_total", ["channel": "email"]) == 0)
                #expect(Self.value(after, "tessera_courier_queue_depth") == 0)
                // Route labels are the router's patterns: no channel or device ID, no token.
                let deviceId = try #require(try tessera.loadDeviceID())
                for sample in after {
                    for value in sample.labels.values {
                        #expect(!value.contains("ch_") && !value.contains(deviceId) && !value.contains(token), "\(sample.name) \(sample.labels)")
                    }
                }
            }
        }
    }

    @Test("an unknown path (404) and a path routed only for other methods (405) are counted under route=\"unmatched\", never under the router's \"NotFound\"")
    func unmatchedRoutes() async throws {
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.metricsToken = Self.token }) { runtime, _, url in
            let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
            for (method, path, status) in [(HTTPMethod.GET, "/no-such-path", 404), (.DELETE, "/healthz", 405)] {
                var request = HTTPClientRequest(url: base + path)
                request.method = method
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                #expect(Int(response.status.code) == status, "\(method) \(path)")
            }
            let metricsApp = Application(router: runtime.makeMetricsRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await metricsApp.test(.live) { metrics in
                let response = try await metrics.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
                let samples = try await Self.parse(String(buffer: response.body))
                #expect(Self.value(samples, "tessera_http_requests_total", ["route": "unmatched", "method": "GET", "status": "404"]) == 1)
                #expect(Self.value(samples, "tessera_http_requests_total", ["route": "unmatched", "method": "DELETE", "status": "405"]) == 1)
                #expect(!samples.contains { $0.labels["route"] == "NotFound" }, "\(samples.filter { $0.name == "tessera_http_requests_total" })")
            }
        }
    }
}
