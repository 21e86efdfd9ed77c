import Foundation
import NATSClient
import Testing
import Vault
import VaultClient
import VaultProtocol

/// The lifecycle the ledger drives (`VaultDirectory`): stop and start move the vault off and back onto a host;
/// terminate deletes its data and revokes every NATS identity of its account.
@Suite(.serialized)
struct VaultLifecycleTests {
    /// A cold start takes a bounded share of the waiting vaults per round (the leases must be renewed before they
    /// run out); the rest follow in the next rounds, and a second host takes what the first has no room for.
    @Test func aColdStartTakesABoundedShareOfVaultsPerRound() async throws {
        let fixture = try await VaultFixture.make()
        var members: [String] = []
        for _ in 0..<5 { members.append(try await fixture.enroll().userGUID) }
        let host = fixture.host("h1", startsPerRound: 2)
        await host.tick()
        #expect(await host.activeVaults.count == 2)
        await host.tick()
        #expect(await host.activeVaults.count == 4)
        let other = fixture.host("h2", startsPerRound: 2)
        await other.tick()
        await host.tick()
        #expect(await host.activeVaults.count + other.activeVaults.count == 5)
        #expect(Set(await host.activeVaults).isDisjoint(with: await other.activeVaults))
        #expect(Set(await host.activeVaults + other.activeVaults) == Set(members))
        await host.shutdown()
        await other.shutdown()
        await fixture.shutdown()
    }

    @Test func stopStartAndTerminate() async throws {
        let fixture = try await VaultFixture.make()
        let host = fixture.host("h1")
        let member = try await fixture.enroll()
        var status = try #require(try await fixture.vaults.status(userGUID: member.userGUID))
        #expect(status.state == "provisioning" && status.desiredState == "running" && status.host == nil)
        await host.tick()
        status = try #require(try await fixture.vaults.status(userGUID: member.userGUID))
        #expect(status.state == "running" && status.progress == 100 && status.host == "h1")
        let app = try fixture.app(member)
        try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device)
        _ = try await app.addSecret("kept", value: "across a stop")

        // Stop: the host lets go at its next round; the data stays.
        _ = try await fixture.vaults.stop(userGUID: member.userGUID, now: Date())
        await host.tick()
        #expect(await host.activeVaults.isEmpty)
        #expect(try await fixture.vaults.status(userGUID: member.userGUID)?.state == "stopped")
        await app.setRequestTimeout(.milliseconds(300))
        await #expect(throws: VaultError.timeout) { try await app.secret("kept") }
        _ = try await fixture.vaults.start(userGUID: member.userGUID, now: Date())
        await host.tick()
        await app.setRequestTimeout(.seconds(5))
        #expect(try await app.secret("kept").value == "across a stop")

        // Terminate: data and keys gone, the app's NATS identity revoked by the bus, start refused.
        let terminated = try #require(try await fixture.vaults.terminate(userGUID: member.userGUID, now: Date()))
        #expect(terminated.state == "terminated" && terminated.desiredState == "terminated")
        await host.tick()
        #expect(await host.activeVaults.isEmpty)
        await #expect(throws: VaultError.self) { try await app.secret("kept") }
        #expect(try await fixture.vaults.start(userGUID: member.userGUID, now: Date())?.desiredState == "terminated")
        let store = FileVaultSessionKeyStore(directory: fixture.directory.appendingPathComponent(member.userGUID + "-app"))
        let credentials = try NATSCredentials(credsFile: try #require(try store.loadSession()).credentials)
        await #expect(throws: NATSError.self) { _ = try await fixture.bus.connector.connect(credentials: credentials, name: "after-terminate") }
        await app.close()
        await host.shutdown()
        await fixture.shutdown()
    }
}
