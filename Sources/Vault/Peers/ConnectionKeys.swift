import Crypto
import Foundation
import VaultProtocol

/// Which of a connection's keys opened an inbound envelope.
enum ConnectionKeyUse: Sendable, Equatable {
    case current
    /// This vault's proposed key: the peer has switched, the rotation is complete.
    case pending
    /// A key replaced by a rotation, within the grace period.
    case previous
}

/// The keys of a connection: `VaultSessionKey.deriveConnection` of this vault's X25519 half and the peer's.
enum ConnectionKeys {
    /// The connection key of two X25519 halves (nil when a stored key is damaged or the peer's is refused).
    static func derive(mine: Data?, peer: Data?, _ connectionID: String) -> SymmetricKey? {
        guard let mine, let peer, let privateKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: mine) else { return nil }
        return try? VaultSessionKey.deriveConnection(privateKey: privateKey, peerPublicKey: peer, connectionID: connectionID)
    }

    /// The keys an inbound envelope may be under: the current pair, this vault's proposed key (the peer switched to
    /// it), and pairs replaced by a rotation within their grace period.
    static func inbound(_ record: ConnectionRecord, now: Int64) -> [(ConnectionKeyUse, SymmetricKey)] {
        let s = record.secrets, id = record.connectionID
        var keys: [(ConnectionKeyUse, SymmetricKey)] = []
        if let key = derive(mine: s.myKey, peer: s.peerKey, id) { keys.append((.current, key)) }
        if let key = derive(mine: s.myPendingKey, peer: s.peerKey, id) { keys.append((.pending, key)) }
        if let until = s.myPreviousUntil, now < until, let key = derive(mine: s.myPreviousKey, peer: s.peerKey, id) {
            keys.append((.previous, key))
        }
        if let until = s.peerPreviousUntil, now < until, let key = derive(mine: s.myKey, peer: s.peerPreviousKey, id) {
            keys.append((.previous, key))
        }
        return keys
    }
}
