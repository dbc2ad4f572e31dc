import CoreMetrics
import Hummingbird
import Metrics
import Synchronization

/// Requests by route pattern (the router's matched path, never the request's URI), method and
/// status: `tessera_http_requests_total{method,route,status}` and the latency histogram
/// `tessera_http_request_duration_seconds{method,route,status_class}`. The handles of a series are
/// made on its first request and kept in one map, so a request costs a short lock around a
/// dictionary lookup (the same as Hummingbird's own metrics cache), an atomic add and the
/// histogram's own lock; no label array is built once the series exists.
package final class HTTPMetrics: Sendable {
    private struct Key: Hashable, Sendable {
        var method: HTTPRequest.Method
        var route: String
        var status: Int
    }

    private struct Series: Sendable {
        let requests: CoreMetrics.Counter
        let duration: CoreMetrics.Timer
    }

    /// The route label of a request no route matched.
    package static let unmatchedRoute = "unmatched"
    /// The methods labelled by name; any other (the parser accepts a few dozen) is `OTHER`, so a
    /// client cannot make new series by inventing methods, as it cannot by inventing paths.
    package static let knownMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .delete, .patch, .options]
    package static let otherMethod = HTTPRequest.Method("OTHER") ?? .get

    private let factory: any MetricsFactory
    private let series = Mutex<[Key: Series]>([:])

    package init(factory: any MetricsFactory) { self.factory = factory }

    /// Counts one answered request.
    package func record(method: HTTPRequest.Method, route: String?, status: Int, duration: Duration) {
        let key = Key(method: Self.knownMethods.contains(method) ? method : Self.otherMethod, route: route ?? Self.unmatchedRoute, status: status)
        let found = series.withLock { $0[key] } ?? made(key)
        found.requests.increment()
        found.duration.record(duration: duration)
    }

    /// Makes (outside the lock: the registry has its own) and keeps the handles of a new series.
    private func made(_ key: Key) -> Series {
        let method = key.method.rawValue, status = String(key.status), statusClass = "\(key.status / 100)xx"
        let made = Series(
            requests: CoreMetrics.Counter(
                label: "tessera_http_requests_total", dimensions: [("method", method), ("route", key.route), ("status", status)], factory: factory
            ),
            duration: CoreMetrics.Timer(
                label: "tessera_http_request_duration_seconds", dimensions: [("method", method), ("route", key.route), ("status_class", statusClass)],
                factory: factory
            )
        )
        return series.withLock { series in
            if let existing = series[key] { return existing }
            series[key] = made
            return made
        }
    }
}
