import Foundation
import TesseraTestSupport
import Testing
import VaultClient
import VaultProtocol

@testable import Vault

/// Issue 25, part 4, as reported: an independent NATS client captures the app's `secrets.datastore.retrieve` (and
/// an earlier write), the host serving the vault is killed with `kill -9`, the vault starts again from the database
/// — on another host (two `tessera vault serve` processes) or on the same host started again — and the captured
/// bytes, published again before the app's next command, get no answer. The app's next command still succeeds,
/// after at most one retry (in a new block of sequence numbers).
@Suite(.serialized, .enabled(if: VaultReliability.natsServerAvailable))
struct VaultReplayAfterTakeoverTests {
    struct Run: Sendable, CustomStringConvertible {
        let database: String
        /// True: a second host takes the vault over; false: the killed host is started again.
        let takeover: Bool
        var description: String { "\(database), " + (takeover ? "two hosts" : "one host restarted") }
    }

    /// Two hosts on PostgreSQL (when the tests have one) and on SQLite; one host restarted on SQLite.
    static var runs: [Run] {
        VaultReliability.databases.map { Run(database: $0, takeover: true) } + [Run(database: "sqlite", takeover: false)]
    }

    /// How long a replay is given to be answered (nothing on the bus takes a tenth of it).
    static let silence: Duration = .seconds(3)

    @Test(arguments: runs)
    func aCapturedReadOrWriteIsNeverAnsweredAfterTheVaultStartsAgain(run: Run) async throws {
        try await HostProcesses.with(database: run.database) { deployment in try await replay(deployment, takeover: run.takeover) }
    }

    private func replay(_ deployment: HostProcesses, takeover: Bool) async throws {
        let first = try await deployment.startHost("h1")
        let member = try await deployment.enroll()
        try await deployment.waitUntilServed([member], by: "h1")
        if takeover { _ = try await deployment.startHost("h2") }

        let directory = deployment.directory.appendingPathComponent("app")
        let keyStore = FileVaultSessionKeyStore(directory: directory)
        // Long enough for a loaded machine to answer the retry; two attempts: the lost one and its retry.
        let app = try await VaultReliability.app(member, urls: deployment.urls(from: 0), directory: directory, timeout: .seconds(3))
        await deployment.resources.track(app)
        try await app.bootstrap(credentials: member.bootstrap, device: .init(deviceID: "d1", deviceType: "linux", appVersion: "1.0"))
        let session = try #require(try keyStore.loadSession())
        let spy = try await ReplaySpy.make(
            identity: deployment.identity, bus: deployment.bus, userGUID: member.userGUID, sessionKey: session.sessionKey)
        do {
            _ = try await app.addSecret("pin", value: "1234")
            #expect(try await app.secret("pin").value == "1234")
            let write = try await spy.captured(VaultHandler.datastoreAdd.rawValue)
            let read = try await spy.captured(VaultHandler.datastoreRetrieve.rawValue)
            // The read is above the last write: the floor the writes alone raised let it through again.
            #expect(read.seq > write.seq)
            try await VaultReliability.eventually("the first answers on the spy", within: 10) {
                let (writes, reads) = (await spy.answers(to: write), await spy.answers(to: read))
                return writes == 1 && reads == 1
            }

            first.kill9()
            let killed = Date().timeIntervalSince1970
            let host = takeover ? "h2" : "h1"
            if !takeover { _ = try await deployment.startHost("h1") }
            try await waitUntilStartedAgain(member, on: host, after: killed, in: deployment)

            // Before the app's next command: the captured bytes again.
            try await spy.replay(read)
            try await spy.replay(write)
            try await Task.sleep(for: Self.silence)
            #expect(await spy.answers(to: read) == 1, "the replayed read was answered again")
            #expect(await spy.answers(to: write) == 1, "the replayed write was answered again")

            // The app carries on: its first attempt (inside the block the vault reserved) is dropped, the retry in
            // the next block is answered.
            let reserved = try #require(try keyStore.loadSession()).sendReserved
            await app.setAttempts(2)
            #expect(try await app.secret("pin").value == "1234")
            #expect(try keyStore.loadSession()?.sendReserved == reserved + SeqReservation.blockSize)
            _ = try await app.updateSecret("pin", value: "4321")
            #expect(try await app.secret("pin").value == "4321")

            // Still nothing for the captured ones, then or now.
            try await spy.replay(read)
            try await spy.replay(write)
            try await Task.sleep(for: Self.silence)
            #expect(await spy.answers(to: read) == 1)
            #expect(await spy.answers(to: write) == 1)
        } catch {
            await spy.close()
            throw error
        }
        await spy.close()
    }

    /// Waits until `host` reports the vault running again, started after `killed` (the database row a host writes
    /// once the vault's subscription is registered at the server).
    private func waitUntilStartedAgain(
        _ member: VaultReliability.Member, on host: String, after killed: TimeInterval, in deployment: HostProcesses
    ) async throws {
        try await VaultReliability.eventually("the vault running again on \(host)", within: 60) {
            guard let row = try await deployment.database.store.vault(member.userGUID) else { return false }
            return row.lease_holder == host && row.state == "running" && row.updated_at > killed
        }
    }
}
