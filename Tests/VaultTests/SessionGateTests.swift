import Crypto
import Foundation
import TesseraCore
import Testing
import VaultProtocol

@testable import Vault

/// The session gate as a state machine: a state (sessions, current, floors), an input (an envelope, a loaded row, a
/// committed reservation, a clock reading) and the gate's verdict, step by step. No database, no bus.
@Suite struct SessionGateTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let subject = "OwnerSpace.0123456789abcdef0123456789abcdef.forVault.secrets.datastore.retrieve"
    static let grace: TimeInterval = 60
    let random = SeededRandomSource(seed: 26)

    static func key(_ byte: UInt8) -> SymmetricKey { SymmetricKey(data: Data(repeating: byte, count: 32)) }

    func envelope(_ session: String, _ seq: UInt64, key: SymmetricKey = Self.key(1), subject: String = Self.subject) throws -> VaultEnvelope {
        try VaultEnvelope.seal(Data("m\(seq)".utf8), key: key, direction: .appToVault, sessionID: session, seq: seq, subject: subject, random: random)
    }

    static func opened(_ session: String, _ seq: UInt64, key: SymmetricKey = key(1)) -> SessionGate.Opening {
        .opened(SessionGate.Keys(id: session, key: key), plaintext: Data("m\(seq)".utf8))
    }

    /// A gate with session `S1` (key 1) made at t0, expiring an hour later.
    static func gate() -> SessionGate {
        var gate = SessionGate(grace: grace, sendBlock: 1000)
        gate.add(LiveSession(new: "S1", key: key(1), expiresAt: t0.addingTimeInterval(3600)), now: t0)
        return gate
    }

    static func stored(_ id: String, floor: UInt64 = 0, sent: UInt64 = 0, expires: Date = t0.addingTimeInterval(3600), superseded: Date? = nil)
        -> VaultSessionStore.Session
    {
        VaultSessionStore.Session(id: id, key: key(2), expiresAt: expires, receiveReserved: floor, sendReserved: sent, supersededAt: superseded)
    }

    @Test func anUnknownSessionIsAskedForOnceAndDroppedWhenNotUsable() throws {
        var gate = Self.gate()
        // Not in memory: the owner is asked to load it; an id the vault never makes is not even looked for.
        #expect(gate.open(try envelope("S2", 1, key: Self.key(2)), subject: Self.subject, now: Self.t0) == .load("S2"))
        #expect(gate.lookup("not a token", now: Self.t0) == .unknown)
        // Loaded (a restart, a takeover): its window starts at the saved floor.
        #expect(gate.restore(Self.stored("S2", floor: 100, sent: 1000), now: Self.t0)?.window == ReplayWindow(floor: 100))
        #expect(gate.open(try envelope("S2", 1, key: Self.key(2)), subject: Self.subject, now: Self.t0) == .dropped(.tooOld))
        let genuine = try envelope("S2", 101, key: Self.key(2))
        #expect(gate.open(genuine, subject: Self.subject, now: Self.t0) == Self.opened("S2", 101, key: Self.key(2)))
        #expect(gate.currentSessionID == "S2")
        // Its own numbers go on above the saved send reservation.
        #expect(gate.nextSend("S2") == SessionGate.Outbound(key: Self.key(2), seq: 1001, reserveUpTo: 2001))
        // A stored session that expired is kept once (nil: not usable), then forgotten.
        #expect(gate.restore(Self.stored("S3", expires: Self.t0), now: Self.t0) == nil)
        #expect(gate.open(try envelope("S3", 1, key: Self.key(2)), subject: Self.subject, now: Self.t0) == .dropped(.unknownSession))
        #expect(gate.sessions["S3"] == nil)
    }

    @Test func aSessionExpires() throws {
        var gate = Self.gate()
        let expiry = Self.t0.addingTimeInterval(3600)
        #expect(gate.open(try envelope("S1", 1), subject: Self.subject, now: expiry.addingTimeInterval(-1)) == Self.opened("S1", 1))
        #expect(gate.open(try envelope("S1", 2), subject: Self.subject, now: expiry) == .dropped(.unknownSession))
        // Forgotten: even before its expiry (a clock going back) it is not usable from memory again.
        #expect(gate.sessions["S1"] == nil)
        #expect(gate.lookup("S1", now: Self.t0) == .stored)
    }

    @Test func aSupersededSessionWorksWithinItsGraceOnly() throws {
        var gate = Self.gate()
        let rotated = Self.t0.addingTimeInterval(10)
        let next = LiveSession(new: "S2", key: Self.key(2), expiresAt: Self.t0.addingTimeInterval(7200))
        gate.adopt(next, superseding: "S1", at: rotated, now: rotated)
        #expect(gate.currentSessionID == "S2")
        #expect(gate.current == SessionGate.Keys(id: "S2", key: Self.key(2)))
        // Within the grace: still opened (messages already on their way), and the app's last-used session gets pushes.
        let inGrace = rotated.addingTimeInterval(Self.grace - 1)
        #expect(gate.open(try envelope("S1", 1), subject: Self.subject, now: inGrace) == Self.opened("S1", 1))
        #expect(gate.currentSessionID == "S1")
        let underNew = try envelope("S2", 1, key: Self.key(2))
        #expect(gate.open(underNew, subject: Self.subject, now: rotated.addingTimeInterval(1)) == Self.opened("S2", 1, key: Self.key(2)))
        // After it: dropped and forgotten.
        let afterGrace = rotated.addingTimeInterval(Self.grace)
        #expect(gate.open(try envelope("S1", 2), subject: Self.subject, now: afterGrace) == .dropped(.unknownSession))
        #expect(gate.sessions["S1"] == nil)
    }

    @Test func aSessionThatCanNoLongerBeUsedIsPrunedWhenAnotherIsAdded() {
        var gate = Self.gate()
        let later = Self.t0.addingTimeInterval(3600)
        gate.add(LiveSession(new: "S2", key: Self.key(2), expiresAt: later.addingTimeInterval(3600)), now: later)
        #expect(gate.sessions.keys.sorted() == ["S2"])
    }

    /// Each seq against the window after the steps before it (RFC 4303 §3.4.3 style, 64 wide, 4096 ahead).
    @Test func seqsPassTheReplayWindowOnce() throws {
        var gate = Self.gate()
        let steps: [(seq: UInt64, verdict: SessionGate.Opening)] = [
            (1, Self.opened("S1", 1)),
            (1, .dropped(.duplicate)),
            (3, Self.opened("S1", 3)),
            (2, Self.opened("S1", 2)),
            (2, .dropped(.duplicate)),
            (70, Self.opened("S1", 70)),
            (6, .dropped(.tooOld)),
            (7, Self.opened("S1", 7)),
            (70 + ReplayWindow.maxAdvance + 1, .dropped(.outOfWindow)),
            (70 + ReplayWindow.maxAdvance, Self.opened("S1", 70 + ReplayWindow.maxAdvance)),
        ]
        for step in steps {
            #expect(gate.open(try envelope("S1", step.seq), subject: Self.subject, now: Self.t0) == step.verdict, "seq \(step.seq)")
        }
    }

    @Test func aBadTagMovesNothing() throws {
        var gate = Self.gate()
        gate.add(LiveSession(new: "S0", key: Self.key(3), expiresAt: Self.t0.addingTimeInterval(3600)), now: Self.t0)
        // Another key, another subject: the tag does not verify; the window stays and the current session too.
        #expect(gate.open(try envelope("S1", 5, key: Self.key(9)), subject: Self.subject, now: Self.t0) == .dropped(.badTag))
        #expect(gate.open(try envelope("S1", 5, subject: Self.subject + "x"), subject: Self.subject, now: Self.t0) == .dropped(.badTag))
        #expect(gate.sessions["S1"]?.window == ReplayWindow())
        #expect(gate.currentSessionID == "S0")
        // The genuine envelope with that seq still passes.
        #expect(gate.open(try envelope("S1", 5), subject: Self.subject, now: Self.t0) == Self.opened("S1", 5))
    }

    /// Issue 25: nothing is answered above the saved floor; the floor moves a block of 100 at a time, and only once
    /// its write committed.
    @Test func theReceiveFloor() {
        var gate = Self.gate()
        #expect(gate.floor("S1", seq: 1) == .reserve(upTo: 100))
        #expect(gate.floor("S1", seq: 100) == .reserve(upTo: 100))
        gate.raiseFloor("S1", to: 100)
        #expect(gate.floor("S1", seq: 1) == .within)
        #expect(gate.floor("S1", seq: 100) == .within)
        #expect(gate.floor("S1", seq: 101) == .reserve(upTo: 200))
        // A late, lower commit never takes the floor back.
        gate.raiseFloor("S1", to: 300)
        gate.raiseFloor("S1", to: 200)
        #expect(gate.sessions["S1"]?.receiveReserved == 300)
        #expect(gate.floor("S1", seq: 301) == .reserve(upTo: 400))
        // No session, or a floor the database column cannot hold: never answered.
        #expect(gate.floor("S9", seq: 1) == .refused)
        #expect(gate.floor("S1", seq: UInt64(Int64.max) + 1) == .refused)
        gate.raiseFloor("S9", to: 100)
        #expect(gate.sessions["S9"] == nil)
    }

    @Test func theVaultsOwnNumbersAreReservedInBlocks() {
        var gate = Self.gate()
        #expect(gate.nextSend("S1") == SessionGate.Outbound(key: Self.key(1), seq: 1, reserveUpTo: 1001))
        #expect(gate.nextSend("S1") == SessionGate.Outbound(key: Self.key(1), seq: 2, reserveUpTo: nil))
        for _ in 3...1001 { _ = gate.nextSend("S1") }
        #expect(gate.nextSend("S1") == SessionGate.Outbound(key: Self.key(1), seq: 1002, reserveUpTo: 2002))
        #expect(gate.nextSend("S9") == nil)
    }
}
