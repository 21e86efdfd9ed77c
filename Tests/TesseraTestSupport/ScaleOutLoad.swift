import Foundation
import Synchronization

/// Load on two instances of one service behind a `LoadBalancer`, with one instance killed with SIGKILL mid-way
/// (issue 29: every service scaled out). Workers run `operation` over and over; what an operation was told is
/// the test's to record (it knows what an acknowledgement is). Each failed operation is classified: a transport
/// failure (no answer: the killed instance) is expected before the balancer drops the killed instance, anything
/// else is a finding; once the survivor serves alone, no operation may fail at all.
public final class ScaleOutLoad: Sendable {
    public struct Tally: Sendable {
        /// Operations that succeeded, in total and among those started once the survivor served alone.
        public var succeeded = 0
        public var succeededOnSurvivor = 0
        /// Operations that failed because an instance did not answer (before the survivor served alone).
        public var transportFailures = 0
        /// Every other failure, and every failure of an operation started once the survivor served alone.
        public var findings: [String] = []
    }

    private let workers: Int
    private let isTransportFailure: @Sendable (any Error) -> Bool
    private let operation: @Sendable (_ worker: Int, _ round: Int) async throws -> Void
    private let tally = Mutex(Tally())
    private let survivorOnly = Mutex(false)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// - Parameter isTransportFailure: whether an error `operation` throws means an instance did not answer.
    public init(
        workers: Int, isTransportFailure: @escaping @Sendable (any Error) -> Bool,
        operation: @escaping @Sendable (_ worker: Int, _ round: Int) async throws -> Void
    ) {
        self.workers = workers
        self.isTransportFailure = isTransportFailure
        self.operation = operation
    }

    public var current: Tally { tally.withLock { $0 } }

    public func start() {
        let load = Task { [self] in
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<workers {
                    group.addTask { await self.work(worker) }
                }
            }
        }
        task.withLock { $0 = load }
    }

    /// One worker: `operation` until the load is cancelled, each outcome tallied.
    private func work(_ worker: Int) async {
        var round = 0
        while !Task.isCancelled {
            round += 1
            let alone = survivorOnly.withLock { $0 }
            do {
                try await operation(worker, round)
                tally.withLock {
                    $0.succeeded += 1
                    if alone { $0.succeededOnSurvivor += 1 }
                }
            } catch {
                // The end of the load cuts operations off: not a finding.
                if Task.isCancelled { break }
                tally.withLock {
                    if isTransportFailure(error), !alone {
                        $0.transportFailures += 1
                    } else {
                        $0.findings.append("worker \(worker), round \(round)\(alone ? " (survivor alone)" : ""): \(error)")
                    }
                }
            }
        }
    }

    /// Runs the kill: once `before` operations succeeded, `victim` is killed with SIGKILL; the balancer keeps
    /// sending to it (round robin) until a request to it failed, as a load balancer does until its health check
    /// notices, then drops it; the load goes on against the survivor alone until `after` more operations, all
    /// started after the drop, succeeded. Returns how long the survivor took for them.
    public func killMidway(
        _ victim: ServiceProcess, instance: String, balancer: LoadBalancer, before: Int, after: Int, within seconds: Double = 40
    ) async throws -> Duration {
        try await waitUntil("\(before) operations before the kill", within: seconds) { self.current.succeeded >= before }
        victim.kill9()
        try await waitUntil("a request to the killed instance failed", within: 10) { balancer.transportFailures(at: instance) > 0 }
        balancer.remove(instance)
        survivorOnly.withLock { $0 = true }
        let start = ContinuousClock.now
        try await waitUntil("\(after) operations on the survivor alone", within: seconds) { self.current.succeededOnSurvivor >= after }
        return ContinuousClock.now - start
    }

    /// Ends the load and waits for its workers.
    public func stop() async {
        let load = task.withLock { $0 }
        load?.cancel()
        await load?.value
    }
}
