import Foundation
import Prometheus
import Synchronization

/// The counters `/metrics` shows (Prometheus text; names start with `realmhost_`): requests by
/// route and status, their durations, tenants open, Lua time, watches. Kept in swift-prometheus'
/// registry; each labelled series is made once and found again by the registry.
public final class ServeMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let watches: Gauge
    private let tenantsOpen: Gauge
    private let luaSeconds: Counter
    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    public init() {
        watches = registry.makeGauge(
            descriptor: Self.name("watches", unit: "open", help: "Live queries (WebSocket watches) open."))
        tenantsOpen = registry.makeGauge(
            descriptor: Self.name("tenants", unit: "open", help: "Tenants (users' realms and Lua states) open."))
        luaSeconds = registry.makeCounter(
            descriptor: Self.name("lua", unit: "seconds_total", help: "Time spent in plugin functions."))
    }

    /// The series already made, by their labels: the registry's own look-up sorts and compares
    /// label lists under its lock, which cost more than the rest of a fast request.
    private let requestSeries = Mutex<[RequestKey: (Counter, DurationHistogram)]>([:])

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// One request answered.
    func request(route: String, method: String, status: Int, duration: Duration) {
        let key = RequestKey(route: route, method: method, status: status)
        let series = requestSeries.withLock { known in
            if let series = known[key] { return series }
            let series = (
                registry.makeCounter(
                    descriptor: Self.name(
                        "http_requests", unit: "total", help: "HTTP requests answered, by route and status."),
                    labels: [("route", route), ("method", method), ("status", String(status))]),
                registry.makeDurationHistogram(
                    descriptor: Self.name("http_request_duration", unit: "seconds", help: "HTTP request durations."),
                    labels: [("route", route)], buckets: Self.buckets)
            )
            known[key] = series
            return series
        }
        series.0.increment()
        series.1.record(duration)
    }

    func luaTime(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        luaSeconds.increment(by: Double(seconds) + Double(attoseconds) / 1e18)
    }

    func watchOpened() { watches.increment(by: 1) }
    func watchClosed() { watches.decrement(by: 1) }
    func setTenantsOpen(_ count: Int) { tenantsOpen.set(Double(count)) }

    /// The exposition text.
    public func text() -> String { registry.emitToString() }

    private static func name(_ metric: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "realmhost", metricName: metric, unitName: unit, helpText: help)
    }
}
