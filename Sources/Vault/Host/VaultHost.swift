import Foundation
import ServiceSupport
import TesseraCore
import TesseraJOSE
import VaultProtocol

/// Serves many users' vaults. A lease loop (every third of the lease time) renews the leases this host holds,
/// stops the vaults it lost or that should stop, and takes vaults nobody serves — including those of a host that
/// died, once their lease ran out. Each user's vault therefore runs on exactly one host at a time.
public actor VaultHost {
    public nonisolated let hostID: String
    let database: VaultDatabase
    let context: VaultHostContext
    let leaseTime: TimeInterval
    let maxVaults: Int
    /// At most this many vaults are started in one round of the lease loop: a round must end well within the lease
    /// time, or the leases it took run out before they are first renewed and the vaults move on (a cold start of
    /// thousands of vaults otherwise thrashes).
    public nonisolated let startsPerRound: Int
    private var runtimes: [String: VaultRuntime] = [:]
    private var loop: Task<Void, Never>?
    /// Until when the leases we hold are surely ours: if renewing fails past it, we stop serving (fencing).
    private var leasesValidUntil = Date.distantPast

    public init(
        database: VaultDatabase, bus: VaultBus, hostID: String? = nil, policy: VaultPolicy = VaultPolicy(),
        leaseTime: TimeInterval = 15, maxVaults: Int = 10_000, startsPerRound: Int = 500, clock: any TesseraClock = SystemClock(),
        random: any RandomSource = SystemRandomSource()
    ) {
        let id = hostID ?? "host-" + Base64URL.encode(random.bytes(9))
        self.hostID = id
        self.database = database
        self.leaseTime = leaseTime
        self.maxVaults = maxVaults
        self.startsPerRound = max(1, startsPerRound)
        // One database handle for the lease loop and the commands (each `app.db` is another event loop's pool).
        let sql = database.sql
        context = VaultHostContext(
            hostID: id, sql: sql, store: VaultStore(db: sql, master: database.master), bus: bus, clock: clock, random: random,
            policy: policy)
    }

    /// Runs the lease loop until `shutdown()`.
    public func start() {
        guard loop == nil else { return }
        let interval = Duration.milliseconds(Int64(leaseTime * 1000 / 3))
        loop = Task { [weak self] in
            while !Task.isCancelled {
                await self?.tick()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One round of the lease loop (tests call it directly).
    public func tick() async {
        let store = context.store
        let now = context.clock.now()
        do {
            let held = Set(try await store.renewLeases(host: hostID, now: now, ttl: leaseTime))
            leasesValidUntil = now.addingTimeInterval(leaseTime)
            for (user, runtime) in runtimes {
                let ended = await runtime.ended
                if !held.contains(user) || ended { await stopRuntime(user, runtime, release: held.contains(user)) }
            }
            for user in try await store.leasesToRelease(host: hostID) {
                if let runtime = runtimes[user] { await stopRuntime(user, runtime, release: false) }
                try await store.releaseLease(user, host: hostID, state: "stopped", now: now)
            }
            let room = min(maxVaults - runtimes.count, startsPerRound)
            var candidates = held.filter { runtimes[$0] == nil }
            var acquired = 0
            if room > candidates.count {
                let taken = try await store.acquireLeases(host: hostID, now: now, ttl: leaseTime, limit: room - candidates.count)
                acquired = taken.count
                candidates.formUnion(taken)
            }
            // Leases held beyond this round's share are renewed and started in the next rounds.
            for user in candidates.sorted().prefix(max(0, room)) { await startRuntime(user, now: now) }
            VaultMetrics.acquired(acquired, host: hostID)
            VaultMetrics.leaseRound(host: hostID, held: held.count + acquired, running: runtimes.count)
        } catch {
            // The database is away: keep serving only while our leases surely hold.
            if now >= leasesValidUntil {
                for (user, runtime) in runtimes { await stopRuntime(user, runtime, release: false) }
            }
        }
    }

    private func startRuntime(_ user: String, now: Date) async {
        let store = context.store
        var started: VaultRuntime?
        do {
            guard let row = try await store.vault(user) else { return }
            let runtime = try VaultRuntime(row: row, context: context)
            try await store.report(user, host: hostID, state: "provisioning", progress: 50, now: now)
            try await runtime.start()
            started = runtime
            try await store.report(user, host: hostID, state: "running", progress: 100, now: now)
            runtimes[user] = runtime
        } catch {
            // Left to the lease: another round (here or on another host) tries again; nothing half-started stays.
            await started?.stop()
            try? await store.releaseLease(user, host: hostID, state: "provisioning", now: now)
        }
    }

    private func stopRuntime(_ user: String, _ runtime: VaultRuntime, release: Bool) async {
        runtimes[user] = nil
        await runtime.stop()
        if release { try? await context.store.releaseLease(user, host: hostID, state: "stopped", now: context.clock.now()) }
    }

    /// Stops every vault and gives their leases back, so other hosts take them at once.
    public func shutdown() async {
        loop?.cancel()
        loop = nil
        for (user, runtime) in runtimes {
            runtimes[user] = nil
            await runtime.stop()
            try? await context.store.releaseLease(user, host: hostID, state: "provisioning", now: context.clock.now())
        }
    }

    /// What `/ready` of the host's admin listener checks (issue 29): its database answers, and its last lease round
    /// succeeded recently enough that the leases it holds are surely its own.
    public nonisolated var readiness: [ReadinessCheck] {
        [
            .database(database.app),
            ReadinessCheck(name: "leases") { [weak self] in
                guard let self else { return "the host stopped" }
                return await self.leasesCurrent ? nil : "the lease loop has not renewed its leases in time"
            },
        ]
    }

    private var leasesCurrent: Bool { context.clock.now() < leasesValidUntil }

    /// The users whose vaults run here.
    public var activeVaults: [String] { runtimes.keys.sorted() }

    /// The running vault of `user` (tests reach into it).
    func runtime(_ user: String) -> VaultRuntime? { runtimes[user] }

    /// Messages dropped (and never answered) per reason, over all vaults on this host.
    public func dropCounts() async -> [VaultDropReason: Int] {
        var total: [VaultDropReason: Int] = [:]
        for runtime in runtimes.values {
            for (reason, count) in await runtime.dropCounts() { total[reason, default: 0] += count }
        }
        return total
    }
}
