import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraTestSupport
import Testing
import Vault
import VaultClient
import VaultProtocol

/// A three-node nats-server cluster in operator mode (a full resolver on each node), a vault host and two users'
/// apps on it, all connected to the first node. That node is killed with SIGKILL while both apps write secrets
/// and Alice sends Bob messages: host and apps reconnect to the surviving nodes by themselves, every write the
/// vault acknowledged is stored, commands keep being answered, and every message Alice's vault reported delivered
/// reaches Bob's app exactly once (the app de-duplicates by `message_id`).
@Suite(.serialized, .enabled(if: VaultReliability.natsServerAvailable))
struct VaultClusterFailoverTests {
    /// Acknowledgements per load before the kill, and again after it.
    static let perPhase = 8

    @Test func aKilledClusterNodeLosesNoAcknowledgedWriteOrMessage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vault-cluster-\(UUID().uuidString)")
        let identity = try NATSOperatorIdentity.loadOrCreate(
            in: directory.appendingPathComponent("operator"), name: "tessera-vault-test", random: SystemRandomSource(), clock: SystemClock())
        let cluster = try await OperatorModeCluster(identity: identity, directory: directory.appendingPathComponent("cluster"))
        let database: VaultDatabase
        do {
            database = try await VaultDatabase.open(VaultHostConfiguration(
                directory: directory, database: .sqlite(path: directory.appendingPathComponent("vault.sqlite").path)))
        } catch {
            cluster.stop()
            throw error
        }
        // Every client tries the pool in order: the host, its vaults' peer links and the apps all start on n1.
        let bus = VaultBus.nats(urls: cluster.urls, identity: identity, clock: SystemClock(), random: SystemRandomSource())
        let host = VaultHost(database: database, bus: bus, hostID: "h1", leaseTime: 2)
        let resources = TestResources()
        do {
            try await run(cluster: cluster, database: database, bus: bus, host: host, directory: directory, identity: identity, resources: resources)
        } catch {
            await resources.release()
            await host.shutdown()
            await database.shutdown()
            cluster.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await resources.release()
        await host.shutdown()
        await database.shutdown()
        cluster.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func run(
        cluster: OperatorModeCluster, database: VaultDatabase, bus: VaultBus, host: VaultHost, directory: URL,
        identity: NATSOperatorIdentity, resources: TestResources
    ) async throws {
        let vaults = VaultDirectory(database: database, bus: bus)
        let alice = try await VaultReliability.enroll(identity: identity, bus: bus, vaults: vaults)
        let bob = try await VaultReliability.enroll(identity: identity, bus: bus, vaults: vaults)
        // The accounts were pushed to n1; they must be on n2 and n3 before n1 dies.
        for member in [alice, bob] {
            try await VaultReliability.eventually("\(member.guid)'s account on every node", within: 60) {
                await cluster.accountKnownEverywhere(member.bootstrap)
            }
        }
        await host.start()
        try await VaultReliability.eventually("both vaults running") { await host.activeVaults.count == 2 }

        let device = VaultConnection.Device(deviceID: "device", deviceType: "linux", appVersion: "1.0")
        // Three seconds per attempt: longer than a vault waits for a peer's acknowledgement (a `message.send`).
        let a = try await VaultReliability.app(alice, urls: cluster.urls, directory: directory.appendingPathComponent("app-a"), timeout: .seconds(3))
        await resources.track(a)
        let b = try await VaultReliability.app(bob, urls: cluster.urls, directory: directory.appendingPathComponent("app-b"), timeout: .seconds(3))
        await resources.track(b)
        try await a.bootstrap(credentials: alice.bootstrap, device: device)
        try await b.bootstrap(credentials: bob.bootstrap, device: device)
        let received = PushCounter(listeningTo: b)
        defer { received.stop() }

        let invite = try await a.createInvite(label: "Bob")
        let accepted = try await b.acceptInvite(invite.invite, label: "Alice")
        #expect(accepted.status == .active)
        let connection = invite.connectionID

        // The loads: both apps write secrets; Alice sends Bob messages, each with its own id, sent again with the
        // same id until her vault says it was delivered (stored by Bob's vault).
        let writes = [AcknowledgementLog(), AcknowledgementLog()]
        let messages = AcknowledgementLog()
        for (index, app) in [a, b].enumerated() {
            let log = writes[index]
            await resources.track(log.writeLoad(app, prefix: "w\(index)"))
        }
        let sent = SentIDs()
        await resources.track(Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                let id = "m-\(n)"
                await sent.add(id)
                for _ in 0..<20 where !Task.isCancelled {
                    do {
                        if try await a.sendMessage("message \(n)", to: connection, messageID: id).delivered {
                            await messages.acknowledge(id)
                            break
                        }
                        await messages.fail(TestFixtureError("not delivered yet"))
                    } catch {
                        await messages.fail(error)
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        })
        func counts() async -> [Int] { [await writes[0].count, await writes[1].count, await messages.count] }

        try await VaultReliability.eventually("traffic before the kill") { await counts().allSatisfy { $0 >= Self.perPhase } }
        // Both vaults and both apps are on n1, the node that dies.
        let clients = Set(["vault-\(alice.guid)", "vault-\(bob.guid)", "app-\(alice.guid)", "app-\(bob.guid)"])
        let onFirst = Set(try await cluster.connectionNames(0))
        #expect(onFirst.isSuperset(of: clients), "connected to n1: \(onFirst)")
        cluster.kill(0)
        let atKill = await counts()
        try await VaultReliability.eventually("traffic after the kill") {
            zip(await counts(), atKill).allSatisfy { $0 >= $1 + Self.perPhase }
        }
        // They carry on from the surviving nodes.
        let onSurvivors = Set(try await cluster.connectionNames(1) + cluster.connectionNames(2))
        #expect(onSurvivors.isSuperset(of: clients), "connected to n2 and n3: \(onSurvivors)")
        await resources.stopLoads()

        // Every acknowledged write is stored.
        for (index, app) in [a, b].enumerated() {
            for key in await writes[index].acknowledged {
                #expect(try await app.secret(key).value == "value of \(key)")
            }
        }
        // Every delivered message reached Bob's app, once; nothing reached it that Alice did not send. A push the
        // vault published while Bob's app was between nodes is gone from the bus (NATS core is at most once): the
        // app catches up from what its vault stored, as an app does after a reconnect.
        let caughtUp = try await b.catchUp()
        let delivered = await messages.acknowledged
        let deliveredAtKill = Set(delivered.prefix(atKill[2]))
        try? await VaultReliability.eventually("the delivered messages at Bob's app", within: 30) {
            Set(await received.ids()).isSuperset(of: delivered)
        }
        try await Task.sleep(for: .milliseconds(500))
        let ids = await received.ids()
        let missing = delivered.filter { !Set(ids).contains($0) }
        #expect(
            missing.isEmpty,
            "delivered to Bob's vault but never pushed to his app: \(missing) (\(missing.filter(deliveredAtKill.contains).count) acknowledged before the kill, of \(delivered.count))")
        var seen: [String: Int] = [:]
        for id in ids { seen[id, default: 0] += 1 }
        #expect(seen.filter { $0.value > 1 }.isEmpty, "delivered more than once: \(seen.filter { $0.value > 1 })")
        let attempted = Set(await sent.all)
        #expect(Set(ids).isSubset(of: attempted))
        let unacknowledgedWrites = [await writes[0].errors, await writes[1].errors]
        let slowest = [await writes[0].slowest, await writes[1].slowest]
        print(
            "cluster node killed: writes acknowledged \(await writes[0].count)+\(await writes[1].count) (slowest \(slowest); not: \(unacknowledgedWrites)), "
                + "messages delivered \(delivered.count) of \(attempted.count) sent, \(ids.count) at Bob's app (\(caughtUp) by catching up); attempts without delivery: "
                + "\(await messages.unacknowledged) \(await messages.errors)")
    }
}

/// The `new-message` pushes an app's notification stream yields, by message id.
final class PushCounter: Sendable {
    private let received = Received()
    private let task: Task<Void, Never>

    private actor Received {
        var ids: [String] = []
        func add(_ id: String) { ids.append(id) }
    }

    init(listeningTo app: VaultConnection) {
        let received = self.received
        task = Task {
            for await push in app.notifications where push.type == VaultNotification.newMessage.rawValue {
                if case .string(let id)? = push.payload["message_id"] { await received.add(id) }
            }
        }
    }

    func ids() async -> [String] { await received.ids }
    func stop() { task.cancel() }
}

/// Every message id the load tried to send.
actor SentIDs {
    private(set) var all: [String] = []
    func add(_ id: String) { all.append(id) }
}
