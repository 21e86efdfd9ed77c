import Foundation
import VaultProtocol

/// `connection.*` peer messages, as the other vault of a connection sends them.
extension PeerLinks {
    /// `connection.accept` on a pending invite of this vault. Genuine when, before the invite expires:
    /// - its envelope opens under `deriveConnection(invite private key, sender_connection_key, connection_id)`, with
    ///   AAD binding the subject: only a holder of the invite knows the invite's public key and connection id;
    /// - it is the first such accept (pending → active is one conditional update; a later accept with another key is
    ///   dropped, the same accepter's repeat is acknowledged again);
    /// - its credentials are signed by the account key of `accepter_guid` (= `sender_guid`) and allow publishing only
    ///   to that user's MessageSpace, so an accept cannot point this vault anywhere else.
    /// The acknowledgement, sealed under the connection key, tells the accepter this vault holds the invite's key.
    func receiveAccept(_ message: PeerMessage, subject: String) async {
        let id = message.connectionID
        guard let senderKey = message.senderConnectionKey, let record = try? await connections.load(id),
            record.secrets.role == .inviter, record.status != .revoked
        else { return drop(.unknownSession) }
        if record.status == .active {
            // The accepter did not get our acknowledgement and sent the accept again.
            guard record.secrets.peerKey == senderKey,
                await authenticate(message.envelope, subject: subject, senderGUID: message.senderGUID) != nil
            else { return }
            return await sendAck(id, seq: message.envelope.seq)
        }
        let now = self.now()
        guard let expires = record.inviteExpiresAt, now <= expires else { return drop(.unknownSession) }
        var window = windows[id] ?? ReplayWindow(floor: record.recvSeq)
        if let reason = window.check(message.envelope.seq) { return drop(reason) }
        guard let key = ConnectionKeys.derive(mine: record.secrets.myKey, peer: senderKey, id),
            let plaintext = try? message.envelope.open(key: key, direction: .vaultToVault, subject: subject)
        else { return drop(.badTag) }
        window.accept(message.envelope.seq)
        windows[id] = window
        guard let accept = body(PeerConnectionAccept.self, plaintext), accept.accepterGUID == message.senderGUID, accept.accepterGUID != guid,
            (try? PeerCredentials(accept.credentials, peerGUID: accept.accepterGUID, identity: bus.identity, now: now)) != nil
        else { return drop(.malformed) }
        guard let adopted = try? await connections.update(id, now: now, { record in
            guard record.status == .pending else { return false }
            record.status = .active
            record.secrets.peerGUID = accept.accepterGUID
            record.secrets.peerKey = senderKey
            record.secrets.peerCredentials = accept.credentials
            return true
        }), adopted.status == .active, adopted.secrets.peerKey == senderKey
        else { return }
        try? await connections.raiseRecvSeq(id, to: window.highest)
        await sendAck(id, seq: message.envelope.seq)
    }

    /// `connection.rotate`: the peer's next key (and new credentials for publishing to it), sealed under the
    /// current key. Adopted, then acknowledged under the new key with the new credentials — which is how the peer
    /// learns this vault switched. A repeat (our acknowledgement was lost) opens under the replaced key and is
    /// acknowledged again.
    func receiveRotate(_ message: PeerMessage, subject: String) async {
        guard let senderKey = message.senderConnectionKey,
            let (record, plaintext) = await authenticate(message.envelope, subject: subject, senderGUID: message.senderGUID)
        else { return }
        guard let rotate = body(PeerConnectionRotate.self, plaintext), let peer = record.secrets.peerGUID else { return drop(.malformed) }
        let now = self.now()
        if let credentials = rotate.credentials {
            guard (try? PeerCredentials(credentials, peerGUID: peer, identity: bus.identity, now: now)) != nil else {
                return drop(.malformed)
            }
        }
        guard (try? await connections.update(record.connectionID, now: now, { record in
            guard record.status == .active, record.secrets.peerKey != senderKey else { return false }
            record.secrets.peerPreviousKey = record.secrets.peerKey
            record.secrets.peerPreviousUntil = Int64(now.addingTimeInterval(ConnectionPolicy.rotationGrace).timeIntervalSince1970)
            record.secrets.peerKey = senderKey
            if let credentials = rotate.credentials { record.secrets.peerCredentials = credentials }
            record.rotatedAt = now
            return true
        })) != nil else { return }
        await sendAck(record.connectionID, seq: message.envelope.seq)
    }

    /// `connection.revoke`: the peer revoked the connection (and the credentials it gave us). This vault revokes
    /// the credentials it issued to the peer the same way, wipes the connection and tells its app.
    func receiveRevoke(_ message: PeerMessage, subject: String) async {
        guard let (record, plaintext) = await authenticate(message.envelope, subject: subject, senderGUID: message.senderGUID) else { return }
        guard let notice = body(PeerConnectionRevoke.self, plaintext) else { return drop(.malformed) }
        let id = record.connectionID, now = self.now()
        // Only the first notice acts (the app may have revoked the connection itself meanwhile).
        guard let revoked = try? await connections.changed(id, now: now, { record in
            guard record.status != .revoked else { return false }
            record.status = .revoked
            return true
        }) else { return }
        // Recorded before the push: should the push fail, the next one of this vault includes it.
        try? await revocations.revoke(revoked.secrets.issuedUsers, now: now)
        await forget(id, now: now)
        await push(.connectionRevoked, payload: ConnectionRevokedPush(connectionID: id, reason: notice.reason).payload)
    }

    /// The peer used this vault's proposed key (`ConnectionRotateCommand`): it becomes the current one (the old one
    /// is still accepted for the grace period), and the credentials it replaced are revoked — the peer publishes with
    /// the new ones now.
    func completeRotation(_ id: String) async {
        let now = self.now()
        guard let record = try? await connections.update(id, now: now, { record in
            guard let pending = record.secrets.myPendingKey else { return false }
            record.secrets.myPreviousKey = record.secrets.myKey
            record.secrets.myPreviousUntil = Int64(now.addingTimeInterval(ConnectionPolicy.rotationGrace).timeIntervalSince1970)
            record.secrets.myKey = pending
            record.secrets.myPendingKey = nil
            if let replaced = record.secrets.issued, record.secrets.pendingIssued != nil { record.secrets.retired.append(replaced.user) }
            record.secrets.issued = record.secrets.pendingIssued ?? record.secrets.issued
            record.secrets.pendingIssued = nil
            record.rotatedAt = now
            return true
        }) else { return }
        let retired = record.secrets.retired
        guard !retired.isEmpty, (try? await revocations.revoke(retired, now: now)) != nil else { return }
        _ = try? await connections.update(id, now: now) { record in
            record.secrets.retired.removeAll { retired.contains($0) }
            return true
        }
    }
}
