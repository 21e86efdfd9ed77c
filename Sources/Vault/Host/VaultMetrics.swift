import Metrics
import NATSClient
import ServiceSupport
import VaultProtocol

/// The vault hosts' metrics (issue 29), in the process's registry (`ServiceMetrics`): what an operator watches to
/// see vaults move between hosts and replays being refused.
enum VaultMetrics {
    /// An envelope dropped unanswered (a replay, a stale session, a forgery…), by reason.
    static func dropped(_ reason: VaultDropReason) {
        ServiceMetrics.bootstrap()
        Counter(label: "tessera_vault_dropped_total", dimensions: [("reason", reason.rawValue)]).increment()
    }

    /// After each lease round: the leases this host holds and the vaults it runs.
    static func leaseRound(host: String, held: Int, running: Int) {
        ServiceMetrics.bootstrap()
        Gauge(label: "tessera_vault_leases_held", dimensions: [("host", host)]).record(held)
        Gauge(label: "tessera_vault_running", dimensions: [("host", host)]).record(running)
    }

    /// Leases this host took that nobody held (a new vault, or one whose host stopped renewing: a takeover).
    static func acquired(_ count: Int, host: String) {
        guard count > 0 else { return }
        ServiceMetrics.bootstrap()
        Counter(label: "tessera_vault_leases_acquired_total", dimensions: [("host", host)]).increment(by: count)
    }

    /// Counts the reconnects of a vault's NATS connection until it closes.
    static func watch(_ connection: any NATSConnection) {
        guard let client = connection as? NATSClient else { return }
        ServiceMetrics.bootstrap()
        let reconnects = Counter(label: "tessera_nats_reconnects_total")
        Task {
            for await event in await client.events() {
                if case .reconnected = event { reconnects.increment() }
                if case .closed = event { break }
            }
        }
    }
}
