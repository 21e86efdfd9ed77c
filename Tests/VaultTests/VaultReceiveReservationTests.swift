import Crypto
import Foundation
import TesseraCore
import Testing
import VaultClient
import VaultProtocol

@testable import Vault

/// The vault's receive reservation (issue 25): before it answers the first seq of a block it saves the block's end as
/// the session's floor, so a vault restored from the database (a restart, another host) drops every envelope the
/// previous one may have answered, reads included. In process, on SQLite; the real nats-server, `kill -9` and
/// PostgreSQL runs are in `VaultReplayAfterTakeoverTests`.
@Suite(.serialized)
struct VaultReceiveReservationTests {
    @Test func aRestoredSessionRefusesEverySeqUpToTheBlockItsReadsWereIn() async throws {
        let fixture = try await VaultFixture.make()
        let (host, member, app) = try await fixture.servedApp()
        _ = try await app.addSecret("k", value: "v")
        #expect(try await app.secret("k").value == "v")
        let sessionID = try Self.session(fixture, member).sessionID

        // Saved: the end of the block, above the read that came after the last write.
        let runtime = try await Self.runtime(fixture, member)
        #expect(try await runtime.sessionStore.load(id: sessionID)?.receiveReserved == 100)
        // A runtime that starts from the database (a restart, a takeover) refuses the whole block.
        let restored = try #require(await runtime.session(sessionID))
        #expect(restored.receiveReserved == 100)
        for seq in UInt64(1)...100 { #expect(restored.window.check(seq) != nil, "seq \(seq) would be answered again") }
        #expect(restored.window.check(101) == nil)

        await app.close()
        await host.shutdown()
        await fixture.shutdown()
    }

    @Test func messagesOfANewBlockAllWaitForTheOneReservationWrite() async throws {
        let fixture = try await VaultFixture.make()
        let member = try await fixture.enroll()
        let runtime = try await Self.runtime(fixture, member)
        let sessionID = "SESSIONONE"
        try await runtime.recordSession(id: sessionID, key: SymmetricKey(size: .bits256), now: Date(), expires: Date().addingTimeInterval(3600))
        #expect(await runtime.session(sessionID)?.receiveReserved == 0)
        let store = await runtime.sessionStore
        let gate = Gate()
        await runtime.setWriteReservation { id, upTo in
            await gate.pass(upTo)
            return (try? await store.reserveReceive(id: id, upTo: upTo)) != nil
        }

        // Five messages of the first block at once (the actor runs them interleaved while the write waits).
        let answered = Answered()
        let waiting = (UInt64(1)...5).map { seq in
            Task {
                let ok = await runtime.reserveReceive(sessionID: sessionID, seq: seq)
                await answered.add(seq, ok)
            }
        }
        try await VaultReliability.eventually("the reservation write", within: 10) { await gate.calls == [100] }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await answered.all.isEmpty, "answered before the floor was saved")
        await gate.open()
        for task in waiting { await task.value }
        let all = await answered.all
        #expect(all.count == 5 && all.allSatisfy(\.ok))
        #expect(await gate.calls == [100])
        #expect(try await store.load(id: sessionID)?.receiveReserved == 100)

        // The rest of the block costs nothing; the next block one more write.
        #expect(await runtime.reserveReceive(sessionID: sessionID, seq: 100))
        #expect(await gate.calls == [100])
        #expect(await runtime.reserveReceive(sessionID: sessionID, seq: 101))
        #expect(await gate.calls == [100, 200])
        #expect(try await store.load(id: sessionID)?.receiveReserved == 200)

        // A write that fails answers nothing and raises nothing; the next message tries again.
        await runtime.setWriteReservation { _, upTo in
            await gate.pass(upTo)
            return false
        }
        #expect(await runtime.reserveReceive(sessionID: sessionID, seq: 201) == false)
        #expect(await runtime.session(sessionID)?.receiveReserved == 200)
        #expect(await runtime.reserveReceive(sessionID: sessionID, seq: 202) == false)
        #expect(await gate.calls == [100, 200, 300, 300])
        #expect(try await store.load(id: sessionID)?.receiveReserved == 200)
        // A floor the database column cannot hold is never promised.
        await runtime.setWriteReservation { _, _ in true }
        #expect(await runtime.reserveReceive(sessionID: sessionID, seq: UInt64(Int64.max) + 1) == false)
        await fixture.shutdown()
    }

    @Test func aCommandWhoseReservationCannotBeSavedIsNeverAnsweredAndWaitingOnesAreAnsweredAfterIt() async throws {
        let fixture = try await VaultFixture.make()
        let (host, member, first) = try await fixture.servedApp()
        _ = try await first.addSecret("k", value: "v")
        await first.close()
        let runtime = try #require(await host.runtime(member.userGUID))
        await runtime.setWriteReservation { _, _ in false }

        // The app restarts (its numbers go on in block 101…200): neither attempt is answered.
        let app = try fixture.app(member)
        try await app.connect()
        await app.setRequestTimeout(.milliseconds(300))
        await app.setAttempts(2)
        await #expect(throws: VaultError.timeout) { try await app.secret("k") }
        #expect(await host.dropCounts()[.unreserved] == 2)

        // Commands of a new block that arrive while its write is on its way are answered once it committed, and
        // only then, for one write.
        let store = await runtime.sessionStore
        let gate = Gate()
        await runtime.setWriteReservation { id, upTo in
            await gate.pass(upTo)
            return (try? await store.reserveReceive(id: id, upTo: upTo)) != nil
        }
        await app.setRequestTimeout(.seconds(30))
        let answered = Answered()
        let reads = (UInt64(1)...4).map { n in
            Task {
                let value = try? await app.secret("k").value
                await answered.add(n, value == "v")
            }
        }
        try await VaultReliability.eventually("the reservation write", within: 10) { await gate.calls.count == 1 }
        try await Task.sleep(for: .milliseconds(500))
        #expect(await answered.all.isEmpty, "answered before the floor was saved")
        await gate.open()
        for read in reads { await read.value }
        let all = await answered.all
        #expect(all.count == 4 && all.allSatisfy(\.ok))
        // Block 201…300: the two lost attempts used 101 and 201 (the retry started a new block).
        #expect(await gate.calls == [300])
        await app.close()
        await host.shutdown()
        await fixture.shutdown()
    }

    @Test func aCapturedReadOrWriteIsNotAnsweredAgainAfterATakeover() async throws {
        let fixture = try await VaultFixture.make()
        let (first, member, app) = try await fixture.servedApp()
        let spy = try await ReplaySpy.make(
            identity: fixture.identity, bus: fixture.bus, userGUID: member.userGUID, sessionKey: try Self.session(fixture, member).sessionKey)
        _ = try await app.addSecret("k", value: "v")
        #expect(try await app.secret("k").value == "v")
        let write = try await spy.captured(VaultHandler.datastoreAdd.rawValue)
        let read = try await spy.captured(VaultHandler.datastoreRetrieve.rawValue)
        try await VaultReliability.eventually("the first answers on the spy", within: 10) {
            let (writes, reads) = (await spy.answers(to: write), await spy.answers(to: read))
            return writes == 1 && reads == 1
        }

        await first.shutdown()
        let second = fixture.host("h2")
        await second.tick()
        #expect(await second.activeVaults == [member.userGUID])
        try await spy.replay(read)
        try await spy.replay(write)
        // The app's next command goes through (after one retry in a new block) ...
        await app.setRequestTimeout(.seconds(2))
        #expect(try await app.secret("k").value == "v")
        #expect(try Self.session(fixture, member).sendReserved == 200)
        // ... and the replays, handled before it, were dropped.
        #expect(await spy.answers(to: read) == 1)
        #expect(await spy.answers(to: write) == 1)
        // The read, the write and the app's first attempt (seqs 1…3 under a floor of 100: too old to tell apart).
        let drops = await second.dropCounts()
        #expect(drops[.tooOld] == 3, "\(drops)")
        await spy.close()
        await app.close()
        await second.shutdown()
        await fixture.shutdown()
    }

    // MARK: helpers

    static func session(_ fixture: VaultFixture, _ member: VaultFixture.Member) throws -> VaultSessionState {
        try #require(try FileVaultSessionKeyStore(directory: fixture.directory.appendingPathComponent(member.userGUID + "-app")).loadSession())
    }

    /// A runtime of `member`'s vault on the fixture's database, not started (as a host builds it).
    static func runtime(_ fixture: VaultFixture, _ member: VaultFixture.Member) async throws -> VaultRuntime {
        let database = fixture.database
        let row = try #require(try await database.store.vault(member.userGUID))
        let context = VaultHostContext(
            hostID: "test", sql: database.sql, store: database.store, bus: fixture.bus, clock: SystemClock(), random: SystemRandomSource(),
            policy: VaultPolicy())
        return try VaultRuntime(row: row, context: context)
    }
}

/// Holds reservation writes until opened, and records them.
actor Gate {
    private(set) var calls: [UInt64] = []
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func pass(_ upTo: UInt64) async {
        calls.append(upTo)
        guard !isOpen else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}

/// What was answered, in order.
actor Answered {
    private(set) var all: [(n: UInt64, ok: Bool)] = []
    func add(_ n: UInt64, _ ok: Bool) { all.append((n, ok)) }
}
