import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraTestSupport
import VaultProtocol

@testable import Vault

/// A nats-server in operator mode, the hosts' database (opened and migrated here first), and `tessera vault serve`
/// processes on them, sharing the operator directory (NATS operator seeds, `vault-master.key`, the SQLite file).
final class HostProcesses: Sendable {
    let directory: URL
    let operatorDirectory: URL
    let identity: NATSOperatorIdentity
    let server: OperatorModeServer
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
        directory: URL, operatorDirectory: URL, identity: NATSOperatorIdentity, server: OperatorModeServer, databaseName: String,
        databaseURL: String, database: VaultDatabase
    ) {
        self.directory = directory
        self.operatorDirectory = operatorDirectory
        self.identity = identity
        self.server = server
        self.databaseName = databaseName
        self.databaseURL = databaseURL
        self.database = database
        bus = .nats(urls: [server.url], identity: identity, clock: SystemClock(), random: SystemRandomSource())
        vaults = VaultDirectory(database: database, bus: bus)
    }

    /// A deployment on `database` for `body`, shut down afterwards. Hosts lease every vault of their database: on the
    /// shared test PostgreSQL, one deployment at a time (`SharedPostgres.exclusively`).
    static func with(database name: String, _ body: @escaping @Sendable (HostProcesses) async throws -> Void) async throws {
        let run: @Sendable () async throws -> Void = {
            let deployment = try await make(database: name)
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

    private static func make(database name: String) async throws -> HostProcesses {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vault-kill-\(UUID().uuidString)")
        let operatorDirectory = directory.appendingPathComponent("operator")
        // The seeds the CLI loads from --operator-dir (same name as the ledger's, though only the keys matter).
        let identity = try NATSOperatorIdentity.loadOrCreate(
            in: operatorDirectory, name: "tessera-ledger", random: SystemRandomSource(), clock: SystemClock())
        let server = try OperatorModeServer(identity: identity, directory: directory.appendingPathComponent("nats"))
        do {
            let url = try VaultReliability.databaseURL(name, in: operatorDirectory)
            let database = try await VaultReliability.openDatabase(
                VaultHostConfiguration(directory: operatorDirectory, database: try ServiceDatabase(url: url)))
            return HostProcesses(
                directory: directory, operatorDirectory: operatorDirectory, identity: identity, server: server, databaseName: name,
                databaseURL: url, database: database)
        } catch {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// `tessera vault serve` as host `id`, back once it prints that it serves.
    func startHost(_ id: String, leaseTime: TimeInterval = VaultHostKillTests.leaseTime) async throws -> ServiceProcess {
        let host = try await ServiceProcess.start(
            [
                "vault", "serve", "--nats", server.url, "--operator-dir", operatorDirectory.path, "--database", databaseURL,
                "--host-id", id, "--lease-time", String(leaseTime), "--auto-migrate",
            ],
            environment: ["TESSERA_HOME": directory.path], ready: "vault host \(id) serving")
        await started.add(host)
        return host
    }

    func enroll() async throws -> VaultReliability.Member {
        let member = try await VaultReliability.enroll(identity: identity, bus: bus, vaults: vaults)
        await started.add(user: member.userGUID)
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

    /// Ends the loads and apps, then the hosts; the users' vaults are left stopped, so that no later host on the
    /// same (PostgreSQL) database tries to serve them.
    func shutdown() async {
        await resources.release()
        for host in await started.hosts { host.stop() }
        for user in await started.users { _ = try? await vaults.stop(userGUID: user, now: Date()) }
        await database.shutdown()
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
