import Hummingbird
import NIOCore
import TesseraHTTPKit

/// `GET /metrics` on the metrics listener: the Prometheus text exposition of ``ServerMetrics``,
/// with the courier's queue read at that moment. With a `metrics.token`, a request without
/// `Authorization: Bearer <token>` is refused with a 401 problem (1108).
package struct MetricsController<Context: TesseraContext> {
    package let metrics: ServerMetrics
    package let courier: CourierService
    package let clock: WallClock
    package let token: String?

    package init(metrics: ServerMetrics, courier: CourierService, clock: WallClock, token: String?) {
        self.metrics = metrics
        self.courier = courier
        self.clock = clock
        self.token = token
    }

    package func addRoutes(to router: Router<Context>) {
        router.get("metrics") { request, _ in
            try checkToken(request.headers[.authorization])
            try await courier.recordQueue(now: clock.now())
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer()))
            )
        }
    }

    private func checkToken(_ authorization: String?) throws {
        guard let token, !token.isEmpty else { return }
        guard let authorization, authorization.hasPrefix("Bearer ") else {
            throw AppError.metricsUnauthorized(detail: "Send Authorization: Bearer <metrics token>")
        }
        guard constantTimeEquals(Array(authorization.utf8.dropFirst("Bearer ".utf8.count)), Array(token.utf8)) else {
            throw AppError.metricsUnauthorized(detail: "Metrics token invalid")
        }
    }
}
