import Foundation
import VaultProtocol

/// Acknowledgements (`PeerAck`): sent once a peer envelope was handled, awaited by the command that sent one.
extension PeerLinks {
    static func ackSlot(_ connectionID: String, _ seq: UInt64) -> String { "\(connectionID)|\(seq)" }

    /// Acknowledges the peer's envelope `seq`; best effort: a lost acknowledgement makes the peer send again, which is
    /// recognised.
    func sendAck(_ connectionID: String, seq: UInt64, messageID: String? = nil) async {
        guard let record = try? await connections.load(connectionID), record.status != .revoked,
            let peer = record.secrets.peerGUID, let credentials = record.secrets.peerCredentials,
            let key = ConnectionKeys.derive(mine: record.secrets.myKey, peer: record.secrets.peerKey, connectionID),
            let own = try? await connections.nextSendSeq(connectionID)
        else { return }
        let subject = VaultSubjects.peer(peer, kind: PeerAck.kind)
        guard let envelope = try? VaultEnvelope.seal(
            PeerAck(seq: seq, messageID: messageID).encoded(), key: key, direction: .vaultToVault, sessionID: connectionID, seq: own,
            subject: subject, random: nats.random)
        else { return }
        try? await publish(envelope.encoded(), subject: subject, connectionID: connectionID, credentials: credentials)
    }

    /// True when the peer acknowledged `seq` within `ConnectionPolicy.ackTimeout`.
    func awaitAck(_ connectionID: String, seq: UInt64) async -> Bool {
        let slot = Self.ackSlot(connectionID, seq)
        switch acks[slot] {
        case .arrived?:
            acks[slot] = nil
            return true
        case .expected?:
            break
        default:
            return false
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            acks[slot] = .waiting(continuation)
            Task { [weak self] in
                try? await Task.sleep(for: ConnectionPolicy.ackTimeout)
                await self?.resolveAck(slot, acknowledged: false)
            }
        }
    }

    func resolveAck(_ slot: String, acknowledged: Bool) {
        switch acks[slot] {
        case .expected?:
            if acknowledged { acks[slot] = .arrived }
        case .waiting(let continuation)?:
            acks[slot] = nil
            continuation.resume(returning: acknowledged)
        default:
            break
        }
    }

    /// `MessageSpace.{guid}.forOwner.ack`: resolves the waiting command, and marks a message delivered even when
    /// nobody waits any more.
    func receiveAck(_ envelope: VaultEnvelope, subject: String) async {
        guard let (record, plaintext) = await authenticate(envelope, subject: subject, senderGUID: nil) else { return }
        guard let ack = try? PeerAck(json: plaintext) else { return drop(.malformed) }
        resolveAck(Self.ackSlot(record.connectionID, ack.seq), acknowledged: true)
        if let messageID = ack.messageID {
            try? await messages.markDelivered(messageID, connectionID: record.connectionID, at: now())
        }
    }
}
