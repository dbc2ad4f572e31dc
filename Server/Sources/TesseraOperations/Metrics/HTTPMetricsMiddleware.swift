import Hummingbird

/// Counts every request in ``HTTPMetrics`` under the route pattern the router matched
/// (`context.endpointPath`, e.g. `/v1/auth/channels/{id}/start`), when the answer's head is ready.
/// Added first, so it sees the status the problem middleware answered with.
package struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    package let metrics: HTTPMetrics

    package init(metrics: HTTPMetrics) {
        self.metrics = metrics
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.record(method: request.method, route: Self.route(context), status: response.status.code, duration: start.duration(to: .now))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.record(method: request.method, route: Self.route(context), status: status, duration: start.duration(to: .now))
            throw error
        }
    }

    /// The matched route's pattern; nil (counted as `unmatched`) when none matched: Hummingbird's router names that
    /// case `NotFound` (a 404, and a 405 for a path routed only for other methods).
    static func route(_ context: Context) -> String? {
        guard let path = context.endpointPath, path != "NotFound" else { return nil }
        return path
    }
}
