import Foundation
import Metrics
import Prometheus
import Vapor

/// The services' metrics (issue 29), through swift-metrics into one Prometheus registry per process, scraped at
/// `GET /metrics`. Vapor itself counts requests by route, method and status and times them
/// (`http_requests_total`, `http_request_duration_seconds`); Tessera adds what an operator alerts on:
/// `tessera_db_statement_duration_seconds`, `tessera_single_use_consumed_total{kind}`,
/// `tessera_outcomes_total{check,result}` (attestations and verifications by failure code) and the vault hosts'
/// sessions, leases and dropped replays (`tessera_vault_*`), NATS reconnects (`tessera_nats_reconnects_total`).
public enum ServiceMetrics {
    /// The registry `/metrics` prints.
    public static let registry = PrometheusCollectorRegistry()

    /// Makes the Prometheus registry the process's metrics backend, once; false when the application installed
    /// another one first (its metrics then go there, and `/metrics` shows only what reached this registry).
    @discardableResult
    public static func bootstrap() -> Bool { installed }

    private static let installed: Bool = {
        guard MetricsSystem.factory is NOOPMetricsHandler else { return false }
        var factory = PrometheusMetricsFactory(registry: registry)
        // From 50 µs: an SQLite statement on the inline path takes a few µs to a few hundred.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .microseconds(2_500_000), .seconds(5),
            .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return true
    }()

    /// A single-use value (nonce, token, code, key) taken by its one atomic statement (counted when `taken`; a
    /// value offered again, or expired, is not). Returns `taken`.
    @discardableResult
    public static func consumed(_ kind: String, when taken: Bool = true) -> Bool {
        guard taken else { return false }
        bootstrap()
        Counter(label: "tessera_single_use_consumed_total", dimensions: [("kind", kind)]).increment()
        return true
    }

    /// The result of a check a relying party alerts on: `check` names it ("device_attestation", "wallet_attestation",
    /// "presentation"), `result` is "ok" or the failure's wire code.
    public static func outcome(_ check: String, result: String) {
        bootstrap()
        Counter(label: "tessera_outcomes_total", dimensions: [("check", check), ("result", result)]).increment()
    }

    /// The Prometheus text exposition of every metric so far.
    static func exposition() -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "text/plain; version=0.0.4; charset=utf-8")
        headers.add(name: .cacheControl, value: "no-store")
        return Response(status: .ok, headers: headers, body: .init(string: registry.emitToString()))
    }
}
