import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraTestSupport
import Testing
import VaultClient
import VaultProtocol

@testable import Vault

/// `kill -9` of a `tessera vault serve` process while its users' apps write: another host (a second process on the
/// same database and nats-server) takes its vaults over once their leases run out, every write an app got an
/// answer for is there, and each app carries on with its session (no new bootstrap). SQLite (WAL,
/// synchronous=NORMAL; both hosts on one file) and PostgreSQL; and scaled out (issue 29): PostgreSQL on a
/// three-node nats-server cluster, hosts and apps spread over the nodes, and both hosts serving vaults.
@Suite(.serialized, .enabled(if: VaultReliability.natsServerAvailable))
struct VaultHostKillTests {
    static let leaseTime: TimeInterval = 2
    /// The lease loop runs every third of the lease time.
    static let tick = leaseTime / 3
    static let users = 4
    /// Acknowledged writes per app before the kill, and again after the takeover.
    static let writesPerPhase = 8

    @Test(arguments: VaultReliability.databases)
    func aKilledHostsVaultsMoveToAnotherHostWithNoAcknowledgedWriteLost(database: String) async throws {
        try await HostProcesses.with(database: database) { deployment in try await run(deployment, users: Self.users, usersOfH2: 0) }
    }

    /// h1 and h2 on nodes of their own, each app on a node in turn, and both hosts serving vaults when h1 is killed:
    /// h2's keep running where they are.
    @Test(.enabled(if: VaultReliability.databases.contains("postgres"), "needs TESSERA_TEST_POSTGRES_URL"))
    func onAThreeNodeClusterAKilledHostsVaultsMoveToTheOtherHost() async throws {
        try await HostProcesses.with(database: "postgres", cluster: true) { deployment in try await run(deployment, users: 2, usersOfH2: 2) }
    }

    /// - Parameter usersOfH2: users whose vaults h2 serves from its start (besides the `users` h1 serves).
    private func run(_ deployment: HostProcesses, users: Int, usersOfH2: Int) async throws {
        var ofH2: [VaultReliability.Member] = []
        for _ in 0..<usersOfH2 { ofH2.append(try await deployment.enroll()) }
        try await deployment.lease(ofH2, to: "h2")
        // h1 alone serves the first users' vaults; h2 starts afterwards and finds them all leased (and renewed).
        let first = try await deployment.startHost("h1", node: 0)
        var members: [VaultReliability.Member] = []
        for _ in 0..<users { members.append(try await deployment.enroll()) }
        try await deployment.waitUntilServed(members, by: "h1")
        _ = try await deployment.startHost("h2", node: 1)
        try await deployment.waitUntilServed(ofH2, by: "h2")
        members += ofH2
        // When h2's vaults last started: the kill of h1 must not restart them.
        var startedOnH2: [String: Double] = [:]
        for member in ofH2 { startedOnH2[member.userGUID] = try #require(try await deployment.database.store.vault(member.userGUID)).updated_at }

        var apps: [VaultConnection] = []
        // What the bootstrap gave each app (its NATS credentials): the session key may rotate (after 1000 messages,
        // which an app whose vault never moved reaches), a bootstrap would replace them.
        var bootstraps: [String] = []
        for (index, member) in members.enumerated() {
            let directory = deployment.directory.appendingPathComponent("app-\(member.guid)")
            let app = try await VaultReliability.app(member, urls: deployment.urls(from: index), directory: directory)
            await deployment.resources.track(app)
            try await app.bootstrap(credentials: member.bootstrap, device: .init(deviceID: "d-\(member.guid)", deviceType: "linux", appVersion: "1.0"))
            apps.append(app)
            bootstraps.append(try #require(try FileVaultSessionKeyStore(directory: directory).loadSession()).credentialID)
        }
        if case .cluster(let cluster) = deployment.nats {
            // The commands cross the cluster's routes: each app on its own node, each host's vaults on the host's.
            for (index, member) in members.enumerated() {
                let (appNode, vaultNode) = (index % cluster.nodes.count, ofH2.contains { $0.userGUID == member.userGUID } ? 1 : 0)
                #expect(try await cluster.connectionNames(appNode).contains("app-\(member.guid)"))
                #expect(try await cluster.connectionNames(vaultNode).contains("vault-\(member.guid)"))
            }
        }

        // The write load: each app adds new secrets one after the other, as fast as they are answered.
        let logs = members.map { _ in AcknowledgementLog() }
        for (index, (app, log)) in zip(apps, logs).enumerated() {
            await deployment.resources.track(log.writeLoad(app, prefix: "w\(index)"))
        }
        func counts() async -> [Int] {
            var all: [Int] = []
            for log in logs { all.append(await log.count) }
            return all
        }
        try await VaultReliability.eventually("writes before the kill") { await counts().allSatisfy { $0 >= Self.writesPerPhase } }

        first.kill9()
        let killed = ContinuousClock.now
        // The leases h1 renewed last: no one may take its vaults before they run out. (h2 could only hold one
        // already if h1 had stalled for longer than a lease; such a vault simply stays where it is.)
        var lastLease: [String: Double] = [:]
        for member in members {
            let row = try #require(try await deployment.database.store.vault(member.userGUID))
            if row.lease_holder == "h1" { lastLease[member.userGUID] = row.lease_expires }
        }
        try #require(!lastLease.isEmpty, "h1 held no vault when it was killed")
        let atKill = await counts()

        try await deployment.waitUntilServed(members, by: "h2")
        let takeover = ContinuousClock.now - killed
        try await VaultReliability.eventually("writes after the takeover") {
            zip(await counts(), atKill).allSatisfy { $0 >= $1 + Self.writesPerPhase }
        }
        await deployment.resources.stopLoads()

        // h2 took each vault once h1's lease had run out, at its next lease-loop round: `updated_at` is the time
        // of the round that started the vault (the hosts' own clock, not this test's polling).
        var delays: [Double] = []
        for member in members {
            let row = try #require(try await deployment.database.store.vault(member.userGUID))
            #expect(row.lease_holder == "h2" && row.state == "running")
            if let started = startedOnH2[member.userGUID] { #expect(row.updated_at == started, "h2's own vault started again") }
            guard let expired = lastLease[member.userGUID] else { continue }
            #expect(row.updated_at > expired, "h2 took the vault before h1's lease ran out")
            #expect(row.updated_at - expired <= Self.tick + Self.leaseTime, "taken \(row.updated_at - expired) s after the lease ran out")
            delays.append(row.updated_at - expired)
        }

        // Every acknowledged write is there, read through the same session (h2 found it in the database).
        for (index, app) in apps.enumerated() {
            let log = logs[index]
            let acknowledged = await log.acknowledged
            for key in acknowledged {
                let value = try await app.secret(key).value
                #expect(value == "value of \(key)")
            }
            var listed = Set<String>()
            var cursor: String?
            repeat {
                let page = try await app.listSecrets(prefix: "w\(index)/", cursor: cursor)
                listed.formUnion(page.items.map(\.key))
                cursor = page.nextCursor
            } while cursor != nil
            #expect(listed.isSuperset(of: acknowledged))
            // Never bootstrapped again.
            let directory = deployment.directory.appendingPathComponent("app-\(members[index].guid)")
            #expect(try FileVaultSessionKeyStore(directory: directory).loadSession()?.credentialID == bootstraps[index])
            let errors = await log.errors, slowest = await log.slowest
            print("app \(index): \(acknowledged.count) writes acknowledged (slowest \(slowest)), not acknowledged: \(errors)")
        }
        print("kill -9 (\(deployment.databaseName), \(deployment.nats.urls.count) NATS node(s), \(ofH2.count) vaults on h2 before): all vaults running on h2 \(takeover) after the kill; h2 took them \(delays) s after h1's leases ran out")
    }
}
