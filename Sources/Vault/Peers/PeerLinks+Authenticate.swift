import Foundation
import TesseraJOSE
import VaultProtocol

extension PeerLinks {
    /// Opens an envelope of an accepted connection (`session_id` = connection_id): the connection must be active (or
    /// accepted by this vault and waiting for the inviter), the sender its peer, the seq new in the connection's
    /// replay window, and the tag must verify under one of its keys. Side effects of a genuine envelope: the window
    /// moves (and its floor is saved), a rotation this vault proposed completes when the peer used the new key, and
    /// a connection this vault accepted becomes active (the inviter could only seal this after adopting the accept).
    func authenticate(_ envelope: VaultEnvelope, subject: String, senderGUID: String?) async -> (ConnectionRecord, Data)? {
        let id = envelope.sessionID
        guard let record = try? await connections.load(id) else {
            drop(.unknownSession)
            return nil
        }
        let accepted = record.status == .active || (record.status == .pending && record.secrets.role == .accepter)
        guard accepted, let peer = record.secrets.peerGUID, senderGUID.map({ $0 == peer }) ?? true else {
            drop(.unknownSession)
            return nil
        }
        var window = windows[id] ?? ReplayWindow(floor: record.recvSeq)
        if let reason = window.check(envelope.seq) {
            drop(reason)
            return nil
        }
        let now = self.now()
        for (use, key) in ConnectionKeys.inbound(record, now: Int64(now.timeIntervalSince1970)) {
            guard let plaintext = try? envelope.open(key: key, direction: .vaultToVault, subject: subject) else { continue }
            window.accept(envelope.seq)
            windows[id] = window
            try? await connections.raiseRecvSeq(id, to: window.highest)
            if use == .pending { await completeRotation(id) }
            if record.status == .pending {
                _ = try? await connections.update(id, now: now) { record in
                    guard record.status == .pending else { return false }
                    record.status = .active
                    return true
                }
            }
            return (record, plaintext)
        }
        drop(.badTag)
        return nil
    }

    /// A peer body from an authenticated plaintext (nil when it is not one).
    func body<Body: PeerMessageBody>(_ type: Body.Type, _ plaintext: Data) -> Body? {
        guard let object = try? JSONValue.parse(plaintext, limits: VaultLimits.json).objectValue else { return nil }
        return try? Body(json: object)
    }
}
