// The ledger's scale-out (issue 29): the throughput of two instances against one, on one PostgreSQL database
// ($TESSERA_BENCH_POSTGRES_URL, which scripts/bench sets). Each instance is `tessera ledger serve` in a child process
// (BenchmarkSupport's ServiceProcess), pinned to a core: the one-instance deployment to core 0, the two-instance one
// to cores 0 and 1, all three started in setup and sharing the ledger directory (its master key) and the database.
// Rate limits are raised out of the way (--rate-limit: every request comes from loopback) and the device KDF made
// small (it runs on the device, here in setup only).
//
// The load: logins of 16 users, one per client, 16 in flight. A login is the device's two requests: the signed
// `POST /action/request` (its LAT proof checked), then `POST /auth/execute` with the password hash sealed to the
// transaction key the ledger chose, and the device taking the new credential package; login k goes to instance
// k mod n, as a round-robin load balancer would send it. The device's work between the two requests (an X25519
// agreement, a seal) runs in this process, inside the measured wall time, for both deployments alike. Users are not
// renewed: each logs in a few dozen to a few hundred times per run, and its used transaction keys stay in its table,
// for both deployments alike.

import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import Ledger
import ServiceSupport
import TesseraCore
import TesseraJOSE
import VaultClient
import HTTPTransport

/// One user of the load, logging in again and again (its state moves with each login, so one client at a time).
actor LedgerUser {
    private var device: Device
    private let passwordHash: Data

    init(device: Device, passwordHash: Data) {
        self.device = device
        self.passwordHash = passwordHash
    }

    /// One login at the ledger at `baseURL`: action/request, auth/execute, the answer taken.
    func login(at baseURL: String, client: HTTPClient) async throws {
        let prepared = try await World.prepare(device, passwordHash: passwordHash, client: client, baseURL: baseURL)
        let answer = try await World.execute(prepared, client: client, baseURL: baseURL)
        guard let json = try JSONValue.parse(answer.readableBytesView).objectValue else { throw BenchmarkFailure("not an object") }
        try device.take(json, usedKeyID: prepared.keyID)
    }
}

/// The two deployments and the users, started in setup.
actor ScaleOut {
    static let shared = ScaleOut()
    static let lanes = 16

    private(set) var one: [ServiceProcess] = []
    private(set) var two: [ServiceProcess] = []
    private(set) var users: [LedgerUser] = []
    private var directory: URL?
    private var enrollHTTP: AsyncHTTPClientTransport?
    let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: ScaleOut.lanes)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    func start() async throws {
        let database = try BenchmarkDeployment.postgresURL()
        let directory = try BenchmarkDeployment.scratchDirectory("tessera-ledger-scale")
        self.directory = directory
        let operatorDirectory = directory.appendingPathComponent("ledger").path
        // One after the other: the first creates the master key and the tables (--auto-migrate: PostgreSQL is not
        // migrated at start-up otherwise), the others load them.
        func instance(core: Int) throws -> ServiceProcess {
            try ServiceProcess(
                executable: ServiceProcess.binary,
                arguments: [
                    "ledger", "serve", "--host", "127.0.0.1", "--port", "0", "--database", database, "--operator-dir", operatorDirectory,
                    "--kdf-cost", "m=64,t=1,p=1", "--rate-limit", "1000000000,1000000000", "--auto-migrate",
                ],
                environment: ["TESSERA_HOME": directory.appendingPathComponent("home").path], core: core, ready: "listening on ")
        }
        one = [try instance(core: ServiceProcess.core(for: 0))]
        two = [try instance(core: ServiceProcess.core(for: 0)), try instance(core: ServiceProcess.core(for: 1))]
        let configuration = LedgerConfiguration(database: try ServiceDatabase(url: database), directory: URL(fileURLWithPath: operatorDirectory))
        let http = AsyncHTTPClientTransport()
        enrollHTTP = http
        for index in 0..<Self.lanes {
            let store = VaultStateStore(directory: directory.appendingPathComponent("device-\(index)"))
            let enrolled = try await VaultClient(store: store, http: http).enroll(
                ledger: one[0].url, invitation: try await LedgerServer.invite(configuration), password: "correct horse battery staple",
                deviceID: "bench-scale-\(index)", deviceType: "linux")
            let user = LedgerUser(
                device: try Device(try store.load()), passwordHash: try enrolled.kdf.hash(password: "correct horse battery staple"))
            // Each user logs in once on every instance before anything is timed.
            for service in one + two { try await user.login(at: service.url, client: client) }
            users.append(user)
        }
    }

    /// `count` logins on `services`, 16 in flight (user l owns client l).
    func batch(_ count: Int, on services: [ServiceProcess]) async throws -> BatchCost {
        let (users, client) = (users, client)
        return try await measureBatch(count, lanes: Self.lanes, on: services) { index in
            try await users[index % Self.lanes].login(at: services[index % services.count].url, client: client)
        }
    }

    func stop() async {
        (one + two).forEach { $0.stop() }
        (one, two, users) = ([], [], [])
        try? await client.shutdown()
        try? await enrollHTTP?.shutdown()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}
