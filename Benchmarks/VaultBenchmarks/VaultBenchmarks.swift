// The vault over a real nats-server (issue 13, "Performance"), with its floor measured in the same run.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target VaultBenchmarks
//
// Every benchmark starts what it needs (see Deployment.swift): /usr/sbin/nats-server (Debian; NATS_SERVER overrides)
// in operator mode as a child process (the operator's JWT, a full resolver, accounts pushed by the system user as the
// ledger does), the hosts' database (SQLite file, WAL, synchronous=NORMAL, as `tessera vault serve` by default), one
// VaultHost with the production lease (15 s, its loop running during the measurements), and users enrolled as the
// ledger leaves them (account JWT pushed, vault provisioned). Apps are `VaultConnection`s bootstrapped with the
// signed reply checked and their session kept in a 0600 file (FileVaultSessionKeyStore, as the CLI keeps it).
// Everything runs in this process except nats-server; all of it shares the machine's cores.
//
// E2E request/reply, against the floor on the same server:
//   vault: `app.secret("bench")`: `secrets.datastore.retrieve` of a 1,024-byte secret: the app seals the command
//     (ChaCha20-Poly1305 envelope, AAD bound to direction, session, seq and subject), publishes it on
//     `OwnerSpace.{guid}.forVault.secrets.datastore.retrieve`, the vault (its own NATS connection in the user's
//     account) opens it, checks the replay window, reads the record (one SELECT) and opens it with the user's data
//     key, answers sealed on `OwnerSpace.{guid}.forApp.secrets.datastore.retrieve.{id}`, and the app opens the answer
//     and decodes the typed result. Exactly what an app does, including its every-100th session save (a file write)
//     and the `session.rotate` after each 1000 messages (issue 13), both amortised in the figures.
//   floor: raw NATS request/reply of the same size on the same server: a NATSClient requester (`request`, 1 KB)
//     and a NATSClient responder echoing the payload to the reply subject, in an account of their own whose users
//     have permissions of the same shape as the app's and the vault's.
//   "sequential": one request per iteration (p50 of the wall clock = round trip latency; "CPU (μs)" = process CPU
//     time of the whole round trip, both ends: they are in this process).
//   "16 in flight": one iteration = 1,600 requests by 16 concurrent callers on the one connection; "req/s". The
//     vault handles one user's commands one at a time (VaultRuntime), so this is one vault's ceiling; "16 users x 1
//     in flight" is the same burst spread over 16 users' vaults on the one host (16 apps, one request each at a time).
//   "ratios": the goal's two ratios measured side by side in each iteration, so that both sides see the same
//     machine (other processes on it move both): 50 vault and 50 floor requests alternated one by one, then a
//     burst of 800 of each at 16 in flight (the order of the bursts alternates between iterations).
//     "p50 ratio (%)" = p50 vault / p50 floor x 100 (goal <= 130); "throughput ratio (%)" = vault req/s / floor
//     req/s x 100 (goal >= 75). "pairs" = the iteration's number (its p100: how many iterations, the N of scripts/bench's
//     "median of N interleaved pairs").
//
// breakdown (where a retrieve's time goes beyond the floor; same deployment, each measured alone):
//   "without handler or database": a command type the vault has no handler for: the whole E2E path (both ends'
//     envelopes, both actors, the bus, the replay window, an encrypted `unknown_command` answer), no SELECT.
//   "missing key": a retrieve whose SELECT finds nothing: the handler and its database read, a small answer.
//   "SELECT alone": the retrieve's statement (VaultRecords.get) on the vault's file through a second Fluent SQLite
//     application: Swift concurrency -> the pool's event loop -> SQLite's thread pool and back.
//   "crypto + JSON": every computation of one retrieve at both ends with no I/O (Breakdown.swift).
//   So: floor -> +E2E machinery = "without handler" -> +handler and SELECT = "missing key" -> +1 KB value = "vault".
//
// Users served per host:
//   memory: N users provisioned (not measured), then one lease round starts their N vaults on the host (each: its
//     row read, keys unsealed, a NATS connection in the user's account with 2 subscriptions, flushed). Measured
//     after 2 s of idling: the host process's malloc heap in use and resident set, and nats-server's resident set,
//     before and after, divided by N ("KiB per vault"); "start ms/vault" = wall time of the round / N.
//     N = VAULT_BENCH_IDLE_VAULTS (default 200). No app sessions (an idle vault), nothing else in the process.
//   load: N users with running vaults and bootstrapped apps (VAULT_BENCH_LOAD_VAULTS, default 1000; users sign up
//     and their vaults start in batches of 1,000, see World.startLoaded), the lease loop running; one iteration = 10 s of an open-loop load of 100 requests/s (one every 10 ms, each to a user chosen at
//     random, not waiting for earlier ones), each a `secrets.datastore.retrieve` of 1 KB; "latency (μs)" has one
//     sample per request (its p50/p99 are the figures), "req/s" what was completed, "CPU (%)" the process's CPU
//     (host and the N apps, both ends) as a share of one core, "active vaults" what the host runs (the histogram
//     keeps 3 significant digits: 6,000 shows as 6,002).

import Benchmark
import BenchmarkSupport
import Foundation
import NATSClient
import VaultClient

#if canImport(Glibc)
    import Glibc
#endif

private let cpuMicroseconds = BenchmarkMetric.custom("CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let requestsPerSecond = BenchmarkMetric.custom("req/s", polarity: .prefersLarger, useScalingFactor: false)
private let p50Ratio = BenchmarkMetric.custom("p50 ratio (%)", polarity: .prefersSmaller, useScalingFactor: false)
private let throughputRatio = BenchmarkMetric.custom("throughput ratio (%)", polarity: .prefersLarger, useScalingFactor: false)
private let vaultP50 = BenchmarkMetric.custom("vault p50 (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let floorP50 = BenchmarkMetric.custom("floor p50 (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let vaultRate = BenchmarkMetric.custom("vault req/s", polarity: .prefersLarger, useScalingFactor: false)
private let floorRate = BenchmarkMetric.custom("floor req/s", polarity: .prefersLarger, useScalingFactor: false)
private let pairNumber = BenchmarkMetric.custom("pairs", polarity: .prefersLarger, useScalingFactor: false)
private let heapPerVault = BenchmarkMetric.custom("heap KiB/vault", polarity: .prefersSmaller, useScalingFactor: false)
private let rssPerVault = BenchmarkMetric.custom("RSS KiB/vault", polarity: .prefersSmaller, useScalingFactor: false)
private let serverRSSPerVault = BenchmarkMetric.custom("nats-server RSS KiB/vault", polarity: .prefersSmaller, useScalingFactor: false)
private let startPerVault = BenchmarkMetric.custom("start ms/vault", polarity: .prefersSmaller, useScalingFactor: false)
private let activeVaults = BenchmarkMetric.custom("active vaults", polarity: .prefersLarger, useScalingFactor: false)
private let latency = BenchmarkMetric.custom("latency (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let cpuShare = BenchmarkMetric.custom("CPU (%)", polarity: .prefersSmaller, useScalingFactor: false)

private let burst = 1_600
private let width = 16

private func environment(_ name: String, default value: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? value
}

let benchmarks: @Sendable () -> Void = {
    let teardown: @Sendable () async throws -> Void = { await World.shared.shutdown() }
    let pair: @Sendable () async throws -> Void = { try await World.shared.startPair() }

    // MARK: sequential

    let sequential = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 300,
        maxDuration: .seconds(6), maxIterations: 20_000, setup: pair, teardown: teardown)
    Benchmark("floor: raw NATS request/reply (1 KB), sequential", configuration: sequential) { benchmark in
        guard let requester = await World.shared.requester else { throw BenchmarkFailure("no requester") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await World.floorRequest(requester)
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
    }
    Benchmark("vault: E2E secrets.datastore.retrieve (1 KB), sequential", configuration: sequential) { benchmark in
        guard let app = await World.shared.app else { throw BenchmarkFailure("no app") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await World.vaultRequest(app)
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
    }

    // MARK: 16 in flight

    let parallel = Benchmark.Configuration(
        metrics: [requestsPerSecond, cpuMicroseconds], warmupIterations: 2, maxDuration: .seconds(8), maxIterations: 200,
        setup: pair, teardown: teardown)
    Benchmark("floor: raw NATS request/reply (1 KB), 16 in flight", configuration: parallel) { benchmark in
        guard let requester = await World.shared.requester else { throw BenchmarkFailure("no requester") }
        let cpu = processCPUMicroseconds()
        let elapsed = try await inFlight(burst, width: width) { _ in try await World.floorRequest(requester) }
        benchmark.measurement(cpuMicroseconds, (processCPUMicroseconds() - cpu) / burst)
        benchmark.measurement(requestsPerSecond, perSecond(burst, elapsed))
    }
    Benchmark("vault: E2E secrets.datastore.retrieve (1 KB), 16 in flight", configuration: parallel) { benchmark in
        guard let app = await World.shared.app else { throw BenchmarkFailure("no app") }
        let cpu = processCPUMicroseconds()
        let elapsed = try await inFlight(burst, width: width) { _ in try await World.vaultRequest(app) }
        benchmark.measurement(cpuMicroseconds, (processCPUMicroseconds() - cpu) / burst)
        benchmark.measurement(requestsPerSecond, perSecond(burst, elapsed))
    }

    let spread = Benchmark.Configuration(
        metrics: [requestsPerSecond, cpuMicroseconds], warmupIterations: 2, maxDuration: .seconds(8), maxIterations: 200,
        setup: { try await World.shared.startLoaded(width) }, teardown: teardown)
    Benchmark("vault: E2E secrets.datastore.retrieve (1 KB), 16 users x 1 in flight, one host", configuration: spread) { benchmark in
        let apps = await World.shared.apps
        guard apps.count == width else { throw BenchmarkFailure("no apps") }
        let cpu = processCPUMicroseconds()
        let elapsed = try await inFlight(burst, width: width) { worker in try await World.vaultRequest(apps[worker]) }
        benchmark.measurement(cpuMicroseconds, (processCPUMicroseconds() - cpu) / burst)
        benchmark.measurement(requestsPerSecond, perSecond(burst, elapsed))
    }

    // MARK: breakdown

    Benchmark("breakdown: E2E round trip without handler or database (unknown command), sequential", configuration: sequential) {
        benchmark in
        guard let app = await World.shared.app else { throw BenchmarkFailure("no app") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await noHandlerRequest(app)
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
    }
    Benchmark("breakdown: E2E retrieve of a missing key (handler + SELECT, small answer), sequential", configuration: sequential) {
        benchmark in
        guard let app = await World.shared.app else { throw BenchmarkFailure("no app") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await missingKeyRequest(app)
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
    }
    Benchmark("breakdown: the retrieve's SELECT alone (Fluent SQLite, the vault's file), sequential", configuration: sequential) {
        benchmark in
        guard let reader = await World.shared.reader else { throw BenchmarkFailure("no database") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await reader.read()
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
    }
    let compute: ComputeOnly
    do { compute = try ComputeOnly() } catch { fatalError("VaultBenchmarks: \(error)") }
    let seq = Counter()
    Benchmark(
        "breakdown: crypto + JSON of one retrieve, both ends, no I/O",
        configuration: .init(
            metrics: [.wallClock, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 100, maxDuration: .seconds(3),
            maxIterations: 50_000)
    ) { benchmark in
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try compute.run(seq: UInt64(seq.next()))
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
    }

    // MARK: ratios, side by side

    let iterationCounter = Counter()
    Benchmark(
        "ratios: vault / floor, side by side (goal p50 <= 130 %, throughput >= 75 %)",
        configuration: .init(
            metrics: [p50Ratio, throughputRatio, vaultP50, floorP50, vaultRate, floorRate, pairNumber], warmupIterations: 1,
            maxDuration: .seconds(30), maxIterations: 40, setup: pair, teardown: teardown)
    ) { benchmark in
        guard let app = await World.shared.app, let requester = await World.shared.requester else {
            throw BenchmarkFailure("no deployment")
        }
        var (vault, floor) = ([Int](), [Int]())
        for _ in 0..<50 {
            floor.append(try await timedMicroseconds { try await World.floorRequest(requester) })
            vault.append(try await timedMicroseconds { try await World.vaultRequest(app) })
        }
        let count = burst / 2
        let floorFirst = iterationCounter.next() % 2 == 0
        var (floorElapsed, vaultElapsed) = (Duration.zero, Duration.zero)
        if floorFirst { floorElapsed = try await inFlight(count, width: width) { _ in try await World.floorRequest(requester) } }
        vaultElapsed = try await inFlight(count, width: width) { _ in try await World.vaultRequest(app) }
        if !floorFirst { floorElapsed = try await inFlight(count, width: width) { _ in try await World.floorRequest(requester) } }
        let (vaultMedian, floorMedian) = (median(vault), median(floor))
        let (vaultPerSecond, floorPerSecond) = (perSecond(count, vaultElapsed), perSecond(count, floorElapsed))
        benchmark.measurement(p50Ratio, vaultMedian * 100 / max(1, floorMedian))
        benchmark.measurement(throughputRatio, vaultPerSecond * 100 / max(1, floorPerSecond))
        benchmark.measurement(vaultP50, vaultMedian)
        benchmark.measurement(floorP50, floorMedian)
        benchmark.measurement(vaultRate, vaultPerSecond)
        benchmark.measurement(floorRate, floorPerSecond)
        benchmark.measurement(pairNumber, benchmark.currentIteration - benchmark.configuration.warmupIterations + 1)
    }

    // MARK: users served per host

    let idleVaults = environment("VAULT_BENCH_IDLE_VAULTS", default: 200)
    Benchmark(
        "host: idle memory per active vault (\(idleVaults) vaults started on one host)",
        configuration: .init(
            metrics: [heapPerVault, rssPerVault, serverRSSPerVault, startPerVault, activeVaults], warmupIterations: 0,
            maxIterations: 1, setup: { try await World.shared.startProvisioned(idleVaults) }, teardown: teardown)
    ) { benchmark in
        guard let deployment = await World.shared.deployment else { throw BenchmarkFailure("no deployment") }
        try await Task.sleep(for: .seconds(1))
        let (heap, rss, server) = (heapInUseBytes(), residentSetKiB(), deployment.server.residentKiB)
        let clock = ContinuousClock()
        let start = clock.now
        try await deployment.startVaults(expecting: idleVaults)
        let elapsed = clock.now - start
        try await Task.sleep(for: .seconds(2))
        benchmark.measurement(heapPerVault, (heapInUseBytes() - heap) / 1024 / idleVaults)
        benchmark.measurement(rssPerVault, (residentSetKiB() - rss) / idleVaults)
        benchmark.measurement(serverRSSPerVault, (deployment.server.residentKiB - server) / idleVaults)
        benchmark.measurement(startPerVault, Int((elapsed / .milliseconds(1)) / Double(idleVaults)))
        benchmark.measurement(activeVaults, await deployment.host.activeVaults.count)
    }

    let loadVaults = environment("VAULT_BENCH_LOAD_VAULTS", default: 1_000)
    Benchmark(
        "host: 100 requests/s across \(loadVaults) users, all vaults on one host",
        configuration: .init(
            metrics: [latency, requestsPerSecond, cpuShare, activeVaults], timeUnits: .microseconds, warmupIterations: 1,
            maxDuration: .seconds(60), maxIterations: 3, setup: { try await World.shared.startLoaded(loadVaults) },
            teardown: teardown)
    ) { benchmark in
        let apps = await World.shared.apps
        guard let deployment = await World.shared.deployment, !apps.isEmpty else { throw BenchmarkFailure("no apps") }
        let (requests, interval) = (1_000, Duration.milliseconds(10))
        let clock = ContinuousClock()
        let (start, cpu) = (clock.now, processCPUMicroseconds())
        let latencies = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<requests {
                try await Task.sleep(until: start + interval * index, clock: clock)
                let app = apps[Int.random(in: 0..<apps.count)]
                group.addTask { try await timedMicroseconds { try await World.vaultRequest(app) } }
            }
            var latencies: [Int] = []
            for try await value in group { latencies.append(value) }
            return latencies
        }
        let elapsed = clock.now - start
        for value in latencies { benchmark.measurement(latency, value) }
        benchmark.measurement(requestsPerSecond, perSecond(latencies.count, elapsed))
        benchmark.measurement(cpuShare, Int(Double(processCPUMicroseconds() - cpu) / (elapsed / .microseconds(1)) * 100))
        benchmark.measurement(activeVaults, await deployment.host.activeVaults.count)
    }
}

/// Counts iterations (the ratio benchmark alternates which burst goes first).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
