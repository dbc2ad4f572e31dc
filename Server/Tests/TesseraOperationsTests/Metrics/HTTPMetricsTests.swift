import Hummingbird
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// The request series' labels are bounded: route patterns or `unmatched`, known methods or `OTHER`.
@Suite("Metrics: HTTP series")
struct HTTPMetricsTests {
    @Test("an unmatched path and an invented method make no new label values; a series is made once and counted on")
    func labels() throws {
        let metrics = ServerMetrics()
        let propfind = try #require(HTTPRequest.Method("PROPFIND"))
        metrics.http.record(method: propfind, route: nil, status: 404, duration: .milliseconds(1))
        metrics.http.record(method: .get, route: "/v1/auth/channels/{channelId}/events", status: 200, duration: .milliseconds(3))
        metrics.http.record(method: .get, route: "/v1/auth/channels/{channelId}/events", status: 200, duration: .seconds(20))
        let text = metrics.render()
        #expect(text.contains(#"tessera_http_requests_total{method="OTHER",route="unmatched",status="404"} 1"#), "\(text)")
        #expect(!text.contains("PROPFIND"))
        #expect(text.contains(#"tessera_http_requests_total{method="GET",route="/v1/auth/channels/{channelId}/events",status="200"} 2"#), "\(text)")
        #expect(text.contains(#"tessera_http_request_duration_seconds_bucket{method="GET",route="/v1/auth/channels/{channelId}/events",status_class="2xx",le="0.0005"} 0"#), "\(text)")
        #expect(text.contains(#"tessera_http_request_duration_seconds_bucket{method="GET",route="/v1/auth/channels/{channelId}/events",status_class="2xx",le="0.005"} 1"#), "\(text)")
        #expect(text.contains(#"tessera_http_request_duration_seconds_count{method="GET",route="/v1/auth/channels/{channelId}/events",status_class="2xx"} 2"#), "\(text)")
    }
}
