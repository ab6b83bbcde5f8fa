import Foundation
import Prometheus

/// The server's Prometheus metrics, in a registry of its own (several servers can share a test
/// process). Labels are operation ids and status codes only: bounded, and never a user's data.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let inFlight: Gauge
    private let purgedKeys: Counter
    private let sealedRows: Counter
    private let treeLeaves: Gauge
    private let checkpointsSigned: Counter
    private let ledgerCheck: Gauge
    private let devicesInUse: Gauge
    private let devicesSilent: Gauge
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "http", metricName: "requests", unitName: "total",
            helpText: "Requests answered, by operation id and status code.")
    }
    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "Time from the request's head to its answer, by operation id.")
    }
    static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(2.5), .seconds(5),
    ]

    init() {
        inFlight = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "http", metricName: "requests_in_flight", unitName: "",
                helpText: "Requests being processed now."))
        purgedKeys = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "idempotency", metricName: "keys_purged", unitName: "total",
                helpText: "Idempotency keys forgotten after their retention."))
        sealedRows = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "ledger", metricName: "rows_sealed", unitName: "total",
                helpText: "Ledger rows sealed into the hash chain by this process."))
        treeLeaves = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "ledger", metricName: "tree_size", unitName: "",
                helpText: "Leaves in the ledger's Merkle tree at the newest checkpoint this process signed."))
        checkpointsSigned = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "ledger", metricName: "checkpoints_signed", unitName: "total",
                helpText: "Checkpoints of the ledger's Merkle tree signed by this process (one a sealer round)."))
        ledgerCheck = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "ledger", metricName: "check_ok", unitName: "",
                helpText: "1 when this process's last check of the ledger's tail passed, 0 when it failed."))
        ledgerCheck.set(Int64(1))
        devicesInUse = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "devices", metricName: "in_use", unitName: "",
                helpText: "Enrolled devices not revoked, of employees not deactivated (read at each scrape)."))
        devicesSilent = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "devices", metricName: "silent", unitName: "",
                helpText: "Devices in use that sent nothing in the last 7 days (read at each scrape)."))
    }

    func devices(inUse: Int, silent: Int) {
        devicesInUse.set(Int64(inUse))
        devicesSilent.set(Int64(silent))
    }

    /// With a read standby: how far behind it is (+Inf while it does not answer). Without one,
    /// not exposed.
    func standbyLag(seconds: Double?) {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "read_standby", metricName: "lag", unitName: "seconds",
                helpText: "How far behind the primary the read standby's data is (read at each scrape)."
            )
        ).set(seconds ?? .infinity)
    }

    func purged(_ count: Int) { purgedKeys.increment(by: Int64(count)) }

    func sealed(_ count: Int) { sealedRows.increment(by: Int64(count)) }

    func checkpointSigned(size: Int64) {
        treeLeaves.set(size)
        checkpointsSigned.increment()
    }

    func ledgerChecked(ok: Bool) { ledgerCheck.set(Int64(ok ? 1 : 0)) }

    func started() { inFlight.increment() }

    func finished(operation: String, status: Int, duration: Duration) {
        inFlight.decrement()
        registry.makeCounter(descriptor: Self.requests, labels: [("operation", operation), ("status", String(status))])
            .increment()
        registry.makeDurationHistogram(
            descriptor: Self.duration, labels: [("operation", operation)], buckets: Self.buckets
        ).record(duration)
    }

    /// The text exposition format.
    func exposition() -> String { registry.emitToString() }
}
