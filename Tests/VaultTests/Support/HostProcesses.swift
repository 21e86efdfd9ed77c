import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraTestSupport
import VaultProtocol

@testable import Vault

/// A nats-server in operator mode (or a three-node cluster of them), the hosts' database (opened and migrated here
/// first), and `tessera vault serve` processes on them, sharing the operator directory (NATS operator seeds,
/// `vault-master.key`, the SQLite file).
final class HostProcesses: Sendable {
    /// Where the deployment's NATS runs.
    enum NATSServers: Sendable {
        case single(OperatorModeServer)
        case cluster(OperatorModeCluster)

        var urls: [String] {
            switch self {
            case .single(let server): [server.url]
            case .cluster(let cluster): cluster.urls
            }
        }

        func stop() {
            switch self {
            case .single(let server): server.stop()
            case .cluster(let cluster): cluster.stop()
            }
        }
    }

    let directory: URL
    let operatorDirectory: URL
    let identity: NATSOperatorIdentity
    let nats: NATSServers
    let databaseName: String
    let databaseURL: String
    let database: VaultDatabase
    let bus: VaultBus
    let vaults: VaultDirectory
    let resources = TestResources()
    private let started = Started()

    /// The host processes and users this deployment started.
    private actor Started {
        var hosts: [ServiceProcess] = []
        var users: [String] = []
        func add(_ host: ServiceProcess) { hosts.append(host) }
        func add(user: String) { users.append(user) }
    }

    private init(
        directory: URL, operatorDirectory: URL, identity: NATSOperatorIdentity, nats: NATSServers, databaseName: String,
        databaseURL: String, database: VaultDatabase
    ) {
        self.directory = directory
        self.operatorDirectory = operatorDirectory
        self.identity = identity
        self.nats = nats
        self.databaseName = databaseName
        self.databaseURL = databaseURL
        self.database = database
        bus = .nats(urls: nats.urls, identity: identity, clock: SystemClock(), random: SystemRandomSource())
        vaults = VaultDirectory(database: database, bus: bus)
    }

    /// A deployment on `database` (and one nats-server, or a three-node `cluster`) for `body`, shut down afterwards.
    /// Hosts lease every vault of their database: on the shared test PostgreSQL, one deployment at a time
    /// (`SharedPostgres.exclusively`).
    static func with(
        database name: String, cluster: Bool = false, _ body: @escaping @Sendable (HostProcesses) async throws -> Void
    ) async throws {
        let run: @Sendable () async throws -> Void = {
            let deployment = try await make(database: name, cluster: cluster)
            do {
                try await body(deployment)
            } catch {
                await deployment.shutdown()
                throw error
            }
            await deployment.shutdown()
        }
        if name == "postgres" { try await SharedPostgres.exclusively(run) } else { try await run() }
    }

    private static func make(database name: String, cluster: Bool) async throws -> HostProcesses {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vault-kill-\(UUID().uuidString)")
        let operatorDirectory = directory.appendingPathComponent("operator")
        // The seeds the CLI loads from --operator-dir (same name as the ledger's, though only the keys matter).
        let identity = try NATSOperatorIdentity.loadOrCreate(
            in: operatorDirectory, name: "tessera-ledger", random: SystemRandomSource(), clock: SystemClock())
        let natsDirectory = directory.appendingPathComponent("nats")
        let nats: NATSServers =
            cluster
            ? .cluster(try await OperatorModeCluster(identity: identity, directory: natsDirectory))
            : .single(try OperatorModeServer(identity: identity, directory: natsDirectory))
        do {
            let url = try VaultReliability.databaseURL(name, in: operatorDirectory)
            let database = try await VaultReliability.openDatabase(
                VaultHostConfiguration(directory: operatorDirectory, database: try ServiceDatabase(url: url)))
            return HostProcesses(
                directory: directory, operatorDirectory: operatorDirectory, identity: identity, nats: nats, databaseName: name,
                databaseURL: url, database: database)
        } catch {
            nats.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The servers' URLs starting at node `index` (modulo their number): each client first connects to a node of
    /// its own and fails over to the others.
    func urls(from index: Int) -> [String] {
        let all = nats.urls
        let start = index % all.count
        return Array(all[start...] + all[..<start])
    }

    /// `tessera vault serve` as host `id` (connected to node `node` first), back once it prints that it serves.
    func startHost(_ id: String, node: Int = 0, leaseTime: TimeInterval = VaultHostKillTests.leaseTime) async throws -> ServiceProcess {
        let host = try await ServiceProcess.start(
            [
                "vault", "serve", "--nats", urls(from: node).joined(separator: ","), "--operator-dir", operatorDirectory.path,
                "--database", databaseURL, "--host-id", id, "--lease-time", String(leaseTime), "--auto-migrate",
            ],
            environment: ["TESSERA_HOME": directory.path], ready: "vault host \(id) serving")
        await started.add(host)
        return host
    }

    func enroll() async throws -> VaultReliability.Member {
        let member = try await VaultReliability.enroll(identity: identity, bus: bus, vaults: vaults)
        await started.add(user: member.userGUID)
        // The account was pushed to the first node; the member's app and vault may connect to any.
        if case .cluster(let cluster) = nats {
            try await VaultReliability.eventually("\(member.guid)'s account on every node", within: 60) {
                await cluster.accountKnownEverywhere(member.bootstrap)
            }
        }
        return member
    }

    /// Waits until every member's vault runs on `host` (as the hosts report it in the database).
    func waitUntilServed(_ members: [VaultReliability.Member], by host: String) async throws {
        try await VaultReliability.eventually("the vaults running on \(host)") {
            for member in members {
                let status = try await vaults.status(userGUID: member.userGUID)
                guard status?.host == host, status?.state == "running" else { return false }
            }
            return true
        }
    }

    /// Leases `members`' vaults to `host` before any host runs, as its lease loop would take them (for long enough
    /// for it to start): a deployment where each host serves vaults of its own, whatever the phases of their loops.
    func lease(_ members: [VaultReliability.Member], to host: String) async throws {
        guard !members.isEmpty else { return }
        let taken = try await database.store.acquireLeases(host: host, now: Date(), ttl: 60, limit: 10_000)
        guard Set(members.map(\.userGUID)).isSubset(of: taken) else { throw TestFixtureError("\(host) did not get the leases") }
    }

    /// Ends the loads and apps, then the hosts; the users' vaults are left stopped, so that no later host on the
    /// same (PostgreSQL) database tries to serve them.
    func shutdown() async {
        await resources.release()
        for host in await started.hosts { host.stop() }
        for user in await started.users { _ = try? await vaults.stop(userGUID: user, now: Date()) }
        await database.shutdown()
        nats.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
