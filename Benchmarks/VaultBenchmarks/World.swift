// The state the vault benchmarks keep between iterations, and the measured operations.

import BenchmarkSupport
import Foundation
import NATSClient
import Vault
import VaultClient

/// What one benchmark set up: a deployment, and (depending on the benchmark) one user's app with the floor's clients,
/// provisioned users whose vaults are not started yet, or many users' apps.
actor World {
    static let shared = World()

    private(set) var deployment: Deployment?
    /// One user's app (the E2E request/reply benchmarks).
    private(set) var app: VaultConnection?
    private(set) var requester: NATSClient?
    private var responder: NATSClient?
    private var responderTask: Task<Void, Never>?
    /// Users provisioned but not started (the memory benchmark starts them), or every user's app (the load benchmark).
    private(set) var users: [BenchUser] = []
    private(set) var apps: [VaultConnection] = []
    /// The vault's database file opened a second time, for the SELECT-alone breakdown.
    private(set) var reader: RecordReader?

    /// One user with a running vault, its app bootstrapped and its 1 KB secret stored; the floor's requester and a
    /// responder echoing every request's payload to its reply subject. One request of each is checked.
    func startPair() async throws { try await cleaningUp { try await self.pair() } }

    private func pair() async throws {
        let deployment = try await Deployment.start()
        self.deployment = deployment
        let user = try await deployment.enroll()
        try await deployment.startVaults(expecting: 1)
        // From here on the lease loop runs as in production (renewals every 5 s), so the lease taken by that round
        // never runs out during setup or measurement.
        await deployment.host.start()
        app = try await deployment.app(for: user)
        let (requester, responder) = try await deployment.floorClients()
        self.requester = requester
        self.responder = responder
        let subscription = try await responder.subscribe(to: floorSubject)
        responderTask = Task {
            do {
                for try await message in subscription {
                    guard let reply = message.replyTo else { continue }
                    try await responder.publish(message.payload, to: reply)
                }
            } catch {}
        }
        try await responder.flush()  // the SUB is registered before the first request
        try await Self.floorRequest(requester)
        reader = try await RecordReader.open(path: deployment.directory.appendingPathComponent("vault.sqlite").path)
        try await reader?.read()
    }

    /// `count` users provisioned (accounts pushed, vault rows and keys written, as the ledger does); no vault started.
    func startProvisioned(_ count: Int) async throws { try await cleaningUp { try await self.provisioned(count) } }

    private func provisioned(_ count: Int) async throws {
        let deployment = try await Deployment.start()
        self.deployment = deployment
        users = try await deployment.enroll(count)
    }

    /// `count` users with running vaults on one host, each with a bootstrapped app and its 1 KB secret. Users sign up
    /// in batches of 1,000, each batch's vaults started by one lease round (which also renews the leases taken
    /// before): one round takes every free vault and starts them one after the other (2-4 ms each here) without
    /// renewing (VaultHost.tick), so a round of more than about 4,000 vaults here outlasts the 15 s lease it took and
    /// the next round stops and restarts them all. Then the lease loop runs as in production.
    func startLoaded(_ count: Int) async throws { try await cleaningUp { try await self.loaded(count) } }

    private func loaded(_ count: Int) async throws {
        let deployment = try await Deployment.start()
        self.deployment = deployment
        var users: [BenchUser] = []
        while users.count < count {
            users += try await deployment.enroll(min(1_000, count - users.count))
            try await deployment.startVaults(expecting: users.count)
        }
        await deployment.host.start()
        let enrolled = users
        apps = try await concurrently(count, width: 8) { index in try await deployment.app(for: enrolled[index]) }
        let active = await deployment.host.activeVaults.count
        guard active == count else { throw BenchmarkFailure("\(active) vaults running after setup, \(count) expected") }
    }

    /// A setup that fails stops what it started (nats-server above all) before the error ends the benchmark.
    private func cleaningUp(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await shutdown()
            throw error
        }
    }

    func shutdown() async {
        responderTask?.cancel()
        await app?.close()
        for app in apps { await app.close() }
        await requester?.close()
        await responder?.close()
        await reader?.shutdown()
        await deployment?.shutdown()
        (deployment, app, requester, responder, responderTask, reader) = (nil, nil, nil, nil, nil, nil)
        (users, apps) = ([], [])
    }

    // MARK: measured operations

    /// One raw NATS request/reply of 1 KB each way.
    nonisolated static func floorRequest(_ requester: NATSClient) async throws {
        let answer = try await requester.request(floorPayload, to: floorSubject)
        guard answer.payload.count == floorPayload.count else { throw BenchmarkFailure("short echo") }
    }

    /// One `secrets.datastore.retrieve` of the 1 KB secret through the E2E session.
    nonisolated static func vaultRequest(_ app: VaultConnection) async throws {
        let answer = try await app.secret(secretKey)
        guard answer.value.utf8.count == secretValue.utf8.count else { throw BenchmarkFailure("short secret") }
    }
}

/// Runs `total` operations with `width` in flight (each worker one after the other; `operation` gets the worker's
/// number); the wall time of all of them.
func inFlight(_ total: Int, width: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<width {
            let share = total / width + (worker < total % width ? 1 : 0)
            group.addTask { for _ in 0..<share { try await operation(worker) } }
        }
        try await group.waitForAll()
    }
    return clock.now - start
}

/// The wall time of one operation, in microseconds.
func timedMicroseconds(_ operation: () async throws -> Void) async rethrows -> Int {
    let clock = ContinuousClock()
    let start = clock.now
    try await operation()
    return Int((clock.now - start) / .nanoseconds(1)) / 1_000
}

func median(_ values: [Int]) -> Int {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func perSecond(_ count: Int, _ elapsed: Duration) -> Int {
    Int((Double(count) / (elapsed / .seconds(1))).rounded())
}
