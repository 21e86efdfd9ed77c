import Crypto
import Foundation
import VaultProtocol

/// An app session as the running vault holds it: the key, the replay window of the app's messages and the vault's
/// own sequence numbers (vault-design.md, "Replay window").
struct LiveSession: Sendable, Equatable {
    let id: String
    let key: SymmetricKey
    var window: ReplayWindow
    /// The app's sequence numbers this vault may answer without another write: the session's floor as saved in the
    /// database (`SeqReservation`). Raised only after the write committed.
    var receiveReserved: UInt64
    let expiresAt: Date
    var supersededAt: Date?
    /// The last sequence number the vault used, and how far its reservation in the database goes.
    var sendSeq: UInt64
    var sendReserved: UInt64

    /// A session the vault has just made (bootstrap, `session.rotate`): nothing received or sent under it yet.
    init(new id: String, key: SymmetricKey, expiresAt: Date) {
        self.init(id: id, key: key, window: ReplayWindow(), receiveReserved: 0, expiresAt: expiresAt, supersededAt: nil, sendSeq: 0, sendReserved: 0)
    }

    /// A session another runtime (or this host before a restart) made: its window starts at the saved receive floor,
    /// above every seq a runtime answered under it, and its own numbers above the saved send reservation.
    init(restoring stored: VaultSessionStore.Session) {
        self.init(
            id: stored.id, key: stored.key, window: ReplayWindow(floor: stored.receiveReserved), receiveReserved: stored.receiveReserved,
            expiresAt: stored.expiresAt, supersededAt: stored.supersededAt, sendSeq: stored.sendReserved, sendReserved: stored.sendReserved)
    }

    init(
        id: String, key: SymmetricKey, window: ReplayWindow, receiveReserved: UInt64, expiresAt: Date, supersededAt: Date?, sendSeq: UInt64,
        sendReserved: UInt64
    ) {
        self.id = id
        self.key = key
        self.window = window
        self.receiveReserved = receiveReserved
        self.expiresAt = expiresAt
        self.supersededAt = supersededAt
        self.sendSeq = sendSeq
        self.sendReserved = sendReserved
    }

    /// Usable until it expires, and after a rotation for `grace` more (vault-design.md, "Rotation").
    func usable(at now: Date, grace: TimeInterval) -> Bool {
        guard now < expiresAt else { return false }
        if let supersededAt { return now < supersededAt.addingTimeInterval(grace) }
        return true
    }
}
