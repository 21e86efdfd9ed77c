import Crypto
import Foundation
import VaultProtocol

/// An app session as the running vault holds it: the key, the replay window of the app's messages and the vault's
/// own sequence numbers.
struct LiveSession: Sendable {
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

    /// Usable until it expires, and after a rotation for `grace` more.
    func usable(at now: Date, grace: TimeInterval) -> Bool {
        guard now < expiresAt else { return false }
        if let supersededAt { return now < supersededAt.addingTimeInterval(grace) }
        return true
    }
}
