import Crypto
import Foundation
import VaultProtocol

/// The app's sessions on a running vault and what an envelope must pass before its command is handled
/// (vault-design.md, "Replay window" and "Rotation"): a live, unexpired session (after `session.rotate` the old one
/// for the grace period more), a seq the session's replay window has not seen, a tag that verifies, and a seq within
/// the session's saved receive floor (`SeqReservation`).
///
/// A passive state machine (ARCHITECTURE.md decision 3): a value with no I/O. Where it needs the database it says
/// so (`load`, `reserve`), and its owner (`VaultRuntime`) does the I/O and feeds the outcome back (`restore`,
/// `raiseFloor`). Whatever does not pass is dropped, never answered (an answer in the clear would tell an attacker
/// what it got right); the gate names the reason, the owner counts it.
struct SessionGate: Sendable {
    /// A session's key under its id: what a command's answer, or a push, is sealed with.
    struct Keys: Sendable, Equatable {
        let id: String
        let key: SymmetricKey
    }

    /// Where a session id leads.
    enum Lookup: Sendable, Equatable {
        case live(LiveSession)
        /// Expired, past its grace after a rotation, or not an id the vault makes: never usable again.
        case unknown
        /// Not in memory: the owner loads it from the database (a restart, a takeover) and calls `restore`.
        case stored
    }

    /// What became of an inbound envelope.
    enum Opening: Sendable, Equatable {
        /// Genuine and new: the window moved and the session is the current one.
        case opened(Keys, plaintext: Data)
        case dropped(VaultDropReason)
        /// Its session is not in memory: `restore` it (or drop `unknownSession`), then `open` again.
        case load(String)
    }

    /// Whether a seq of an opened envelope may be answered yet (issue 25, `SeqReservation`).
    enum Floor: Sendable, Equatable {
        /// Within the saved floor: answer.
        case within
        /// Above it: save `upTo` (the end of the seq's block) first; answer once that committed.
        case reserve(upTo: UInt64)
        /// No such session, or a floor the database column (a signed 64-bit integer) cannot hold: never answer.
        case refused
    }

    /// A number and key for the vault's next envelope under a session.
    struct Outbound: Sendable, Equatable {
        let key: SymmetricKey
        let seq: UInt64
        /// Save this send reservation before the number is used (a host taking over then starts above it).
        let reserveUpTo: UInt64?
    }

    /// How long the old session still works after `session.rotate`.
    let grace: TimeInterval
    /// The vault's own numbers are reserved in blocks of this size.
    let sendBlock: UInt64
    private(set) var sessions: [String: LiveSession] = [:]
    /// The session pushes go to: the one the app used or created last.
    private(set) var currentSessionID: String?

    init(grace: TimeInterval, sendBlock: UInt64) {
        self.grace = grace
        self.sendBlock = sendBlock
    }

    // MARK: receiving

    /// The session `id` names, from memory; one that can no longer be used is forgotten here.
    mutating func lookup(_ id: String, now: Date) -> Lookup {
        if let live = sessions[id] {
            if live.usable(at: now, grace: grace) { return .live(live) }
            sessions[id] = nil  // expired, or past its grace after a rotation: never usable again
            return .unknown
        }
        return VaultID.isToken(id) ? .stored : .unknown
    }

    /// A session loaded from the database: its window starts at the saved receive floor, above every seq a previous
    /// runtime answered, so a replay of any of them is dropped. Kept even when no longer usable (the next `lookup`
    /// forgets it); nil then. A session already in memory is kept as it is (its window may have moved since).
    mutating func restore(_ stored: VaultSessionStore.Session, now: Date) -> LiveSession? {
        let live = sessions[stored.id] ?? LiveSession(restoring: stored)
        sessions[stored.id] = live
        return live.usable(at: now, grace: grace) ? live : nil
    }

    /// An app → vault envelope on `subject`: its session, its seq against the replay window, its tag. Only a genuine
    /// envelope moves the window (a forged one must not), and its session becomes the one pushes go to.
    mutating func open(_ envelope: VaultEnvelope, subject: String, now: Date) -> Opening {
        let session: LiveSession
        switch lookup(envelope.sessionID, now: now) {
        case .live(let live): session = live
        case .unknown: return .dropped(.unknownSession)
        case .stored: return .load(envelope.sessionID)
        }
        if let reason = session.window.check(envelope.seq) { return .dropped(reason) }
        guard let plaintext = try? envelope.open(key: session.key, direction: .appToVault, subject: subject) else {
            return .dropped(.badTag)
        }
        sessions[session.id]?.window.accept(envelope.seq)
        currentSessionID = session.id
        return .opened(Keys(id: session.id, key: session.key), plaintext: plaintext)
    }

    /// Nothing is answered above the session's saved floor, so that a vault restored from the database drops the
    /// envelope, read or write, if it comes again. The floor moves a block of 100 at a time (one write per block).
    func floor(_ sessionID: String, seq: UInt64) -> Floor {
        guard let session = sessions[sessionID] else { return .refused }
        if seq <= session.receiveReserved { return .within }
        let upTo = SeqReservation.blockEnd(of: seq)
        return upTo <= UInt64(Int64.max) ? .reserve(upTo: upTo) : .refused
    }

    /// The floor `upTo` committed (never lowered; the session may have gone meanwhile: then nothing to do).
    mutating func raiseFloor(_ sessionID: String, to upTo: UInt64) {
        guard var session = sessions[sessionID] else { return }
        session.receiveReserved = max(session.receiveReserved, upTo)
        sessions[sessionID] = session
    }

    // MARK: sending

    /// The next seq of the vault under `sessionID` (nil when the session is gone), and the reservation to save
    /// first when the number is past the last one saved.
    mutating func nextSend(_ sessionID: String) -> Outbound? {
        guard var session = sessions[sessionID] else { return nil }
        session.sendSeq += 1
        let seq = session.sendSeq
        let mustReserve = seq > session.sendReserved
        if mustReserve { session.sendReserved = seq + sendBlock }
        sessions[sessionID] = session
        return Outbound(key: session.key, seq: seq, reserveUpTo: mustReserve ? session.sendReserved : nil)
    }

    /// The session pushes go to, with its key.
    var current: Keys? {
        guard let id = currentSessionID, let session = sessions[id] else { return nil }
        return Keys(id: id, key: session.key)
    }

    // MARK: new sessions

    /// A session the vault made (`app.bootstrap`): it becomes the current one.
    mutating func add(_ session: LiveSession, now: Date) {
        sessions[session.id] = session
        currentSessionID = session.id
        prune(now: now)
    }

    /// `session.rotate`: the new session becomes the current one; the old one keeps working for the grace period,
    /// so messages already on their way are not lost.
    mutating func adopt(_ session: LiveSession, superseding oldID: String, at: Date, now: Date) {
        sessions[session.id] = session
        sessions[oldID]?.supersededAt = at
        currentSessionID = session.id
        prune(now: now)
    }

    /// Forgets the sessions that can no longer be used (when a session is added), except the current one.
    private mutating func prune(now: Date) {
        sessions = sessions.filter { $0.value.usable(at: now, grace: grace) || $0.key == currentSessionID }
    }

    /// Everything, when the vault stops.
    mutating func removeAll() {
        sessions.removeAll()
    }
}
