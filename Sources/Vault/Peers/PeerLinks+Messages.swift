import Foundation
import VaultProtocol

/// `message`, `read-receipt` and `profile` peer messages, as the other vault of a connection sends them.
extension PeerLinks {
    /// `message`: stored once per message id (a re-sent message is recognised: not stored or pushed again), pushed
    /// to the app as `new-message`, and acknowledged in every case — the acknowledgement says "stored".
    func receiveMessage(_ message: PeerMessage, subject: String) async {
        guard let (record, plaintext) = await authenticate(message.envelope, subject: subject, senderGUID: message.senderGUID) else { return }
        guard let text = body(PeerTextMessage.self, plaintext) else { return drop(.malformed) }
        let id = record.connectionID
        let stored = StoredMessage(messageID: text.messageID, content: text.content, contentType: text.contentType, sentAt: text.sentAt)
        // Not stored (the database is away): no acknowledgement, so the sender sends it again.
        guard let inserted = try? await messages.insert(stored, connectionID: id, direction: .incoming, now: now()) else { return }
        if inserted {
            await push(.newMessage, payload: NewMessagePush(
                messageID: text.messageID, connectionID: id, content: text.content, contentType: text.contentType, sentAt: text.sentAt
            ).payload)
        }
        await sendAck(id, seq: message.envelope.seq, messageID: text.messageID)
    }

    /// `read-receipt` for a message this vault sent: recorded, and pushed to the app the first time.
    func receiveReadReceipt(_ message: PeerMessage, subject: String) async {
        guard let (record, plaintext) = await authenticate(message.envelope, subject: subject, senderGUID: message.senderGUID) else { return }
        guard let receipt = body(PeerReadReceipt.self, plaintext) else { return drop(.malformed) }
        let id = record.connectionID
        guard (try? await messages.get(receipt.messageID, connectionID: id, direction: .outgoing)) != nil,
            (try? await messages.markRead(
                receipt.messageID, connectionID: id, direction: .outgoing, at: Date(timeIntervalSince1970: TimeInterval(receipt.readAt)))) == true
        else { return }
        await push(.readReceipt, payload: ReadReceiptPush(messageID: receipt.messageID, connectionID: id, readAt: receipt.readAt).payload)
    }

    /// `profile`: pushed to the app as `profile-update`, unless an older version than one already seen.
    func receiveProfile(_ message: PeerMessage, subject: String) async {
        guard let (record, plaintext) = await authenticate(message.envelope, subject: subject, senderGUID: message.senderGUID) else { return }
        guard let profile = body(PeerProfile.self, plaintext) else { return drop(.malformed) }
        let id = record.connectionID
        guard (try? await connections.changed(id, now: now(), { record in
            if let seen = record.secrets.peerProfileVersion, profile.version < seen { return false }
            record.secrets.peerProfileVersion = profile.version
            return true
        })) != nil else { return }
        await push(.profileUpdate, payload: ProfileUpdatePush(connectionID: id, profile: profile.profile).payload)
    }
}
