import Logging
import ServiceLifecycle
import Synchronization

/// How a server process ends (issue 29), through swift-service-lifecycle: SIGTERM (or SIGINT) starts a graceful
/// shutdown; the process stops accepting connections, finishes the requests in flight and gives back what it holds
/// (a vault host its leases, so another host takes its vaults at once instead of after the lease time), all within
/// `bound`; past it, the process ends anyway and whatever was unfinished is left to clients' retries (nothing
/// acknowledged is lost: every answer follows its commit).
public enum ServiceTermination {
    /// Returns after SIGTERM or SIGINT arrived and `shutdown` finished, or `bound` passed.
    public static func run(bound: Duration = .seconds(15), shutdown: @escaping @Sendable () async -> Void) async {
        var logger = Logger(label: "tessera.lifecycle")
        logger.logLevel = .warning
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: ShutdownOnSignal(bound: bound, shutdown: shutdown))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = bound + .seconds(1)
        try? await ServiceGroup(configuration: configuration).run()
    }
}

/// Waits for the group's graceful shutdown, then runs `shutdown` for at most `bound`.
private struct ShutdownOnSignal: Service {
    let bound: Duration
    let shutdown: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await Self.first(of: shutdown, orAfter: bound)
    }

    /// Returns when `work` finished or `bound` passed, whichever is first; `work` is not waited for beyond it.
    static func first(of work: @escaping @Sendable () async -> Void, orAfter bound: Duration) async {
        let done = Mutex<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            done.withLock { $0 = continuation }
            let finish: @Sendable () -> Void = { done.withLock { $0.take() }?.resume() }
            Task {
                await work()
                finish()
            }
            Task {
                try? await Task.sleep(for: bound)
                finish()
            }
        }
    }
}
