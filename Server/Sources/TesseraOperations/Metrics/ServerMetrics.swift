import CoreMetrics
import Foundation
import Metrics
import Prometheus
import Synchronization
import TesseraCore

/// One server's metrics: its own Prometheus registry and a swift-metrics factory over it, given to
/// the services that count (never the process-wide `MetricsSystem`, which can be bootstrapped once
/// per process while the tests run many servers in one). The series every scrape should show are
/// made once here, so counting is an atomic add on a handle that already exists; the few whose
/// labels are only known later (routes, node IDs) are made once on first use and kept.
public final class ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry: PrometheusCollectorRegistry
    /// swift-metrics over ``registry`` (with the histogram buckets below).
    public let factory: PrometheusMetricsFactory
    /// Requests by route pattern, method and status.
    package let http: HTTPMetrics

    /// Latency buckets of the HTTP and node histograms: 0.5 ms to 10 s.
    package static let latencyBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5), .seconds(10),
    ]

    private let logins: [AuthOutcome: CoreMetrics.Counter]
    private let otpSent: [OTPChannel: CoreMetrics.Counter]
    private let otpFailed: [OTPChannel: CoreMetrics.Counter]
    private let push: [PushProvider: [PushResult: CoreMetrics.Counter]]
    private let courierDepth: CoreMetrics.Meter
    private let courierOldestAge: CoreMetrics.Meter
    private let nodes = Mutex<[String: NodeSeries]>([:])
    private let spareNodes: CoreMetrics.Counter
    private let webhooks: [WebhookResult: CoreMetrics.Counter]

    /// How a webhook delivery attempt ended, for ``webhookDelivery(_:)``.
    package enum WebhookResult: String, CaseIterable, Sendable {
        case delivered, retry, givenUp = "given_up", cancelled
    }

    private struct NodeSeries: Sendable {
        let latency: CoreMetrics.Timer
        let failures: CoreMetrics.Counter
    }

    /// A new, empty registry with every fixed series at zero.
    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.latencyBuckets
        self.registry = registry
        self.factory = factory
        http = HTTPMetrics(factory: factory)
        let ended: [AuthOutcome] = [.completed, .failed, .declined, .cancelled, .expired]
        logins = Dictionary(uniqueKeysWithValues: ended.map {
            ($0, CoreMetrics.Counter(label: "tessera_logins_total", dimensions: [("outcome", $0.rawValue)], factory: factory))
        })
        otpSent = Dictionary(uniqueKeysWithValues: OTPChannel.allCases.map {
            ($0, CoreMetrics.Counter(label: "tessera_otp_sent_total", dimensions: [("channel", $0.rawValue)], factory: factory))
        })
        otpFailed = Dictionary(uniqueKeysWithValues: OTPChannel.allCases.map {
            ($0, CoreMetrics.Counter(label: "tessera_otp_send_failures_total", dimensions: [("channel", $0.rawValue)], factory: factory))
        })
        push = Dictionary(uniqueKeysWithValues: PushProvider.allCases.map { provider in
            (provider, Dictionary(uniqueKeysWithValues: PushResult.allCases.map {
                ($0, CoreMetrics.Counter(
                    label: "tessera_push_deliveries_total", dimensions: [("provider", provider.rawValue), ("outcome", $0.rawValue)], factory: factory
                ))
            }))
        })
        courierDepth = CoreMetrics.Meter(label: "tessera_courier_queue_depth", factory: factory)
        courierOldestAge = CoreMetrics.Meter(label: "tessera_courier_oldest_pending_age_seconds", factory: factory)
        spareNodes = CoreMetrics.Counter(label: "tessera_node_spare_asks_total", factory: factory)
        webhooks = Dictionary(uniqueKeysWithValues: WebhookResult.allCases.map {
            ($0, CoreMetrics.Counter(label: "tessera_webhook_deliveries_total", dimensions: [("outcome", $0.rawValue)], factory: factory))
        })
    }

    /// An authentication channel ended with `outcome` (completed, failed, declined, cancelled, expired).
    package func login(_ outcome: AuthOutcome) { logins[outcome]?.increment() }

    /// The courier handed a one-time code to its channel's sender (`delivered`) or the sender failed.
    package func otpDelivery(channel: OTPChannel, delivered: Bool) {
        (delivered ? otpSent : otpFailed)[channel]?.increment()
    }

    /// One push delivery attempt ended.
    package func pushDelivery(provider: PushProvider, outcome: PushResult) { push[provider]?[outcome]?.increment() }

    /// One webhook delivery attempt ended (or a delivery was cancelled because its endpoint is disabled or gone).
    package func webhookDelivery(_ outcome: WebhookResult) { webhooks[outcome]?.increment() }

    /// One node's attestation call took `duration`; `failed` when it did not give a valid attestation.
    package func nodeAttestation(nodeId: String, duration: Duration, failed: Bool) {
        let series = nodes.withLock { nodes in
            if let series = nodes[nodeId] { return series }
            let series = NodeSeries(
                latency: CoreMetrics.Timer(label: "tessera_node_attestation_duration_seconds", dimensions: [("node", nodeId)], factory: factory),
                failures: CoreMetrics.Counter(label: "tessera_node_attestation_failures_total", dimensions: [("node", nodeId)], factory: factory)
            )
            nodes[nodeId] = series
            return series
        }
        series.latency.record(duration: duration)
        if failed { series.failures.increment() }
    }

    /// A spare node was asked to attest: a node of the login's first round failed, or the round was
    /// slower than `nodes.spareAfterMs`.
    package func spareNodeAsked() { spareNodes.increment() }

    /// The courier's queue as read at a scrape: pending messages and the age of the oldest one.
    package func courierQueue(depth: Int, oldestAge: Duration) {
        courierDepth.set(depth)
        courierOldestAge.set(Double(oldestAge.components.seconds) + Double(oldestAge.components.attoseconds) / 1e18)
    }

    /// The Prometheus text exposition of every series.
    public func render() -> String { registry.emitToString() }
}

extension ServerMetrics: LoginMetrics, CourierMetrics, PushMetrics {}
