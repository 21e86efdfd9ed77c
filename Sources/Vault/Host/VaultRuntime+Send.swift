import Foundation
import TesseraJOSE
import VaultProtocol

/// What the vault sends its app: answers and pushes, sealed under a session with the vault's next seq.
extension VaultRuntime {
    /// Encrypts `plaintext` for the app under `sessionID` and publishes it on `subject`.
    func send(_ plaintext: Data, to subject: String, sessionID: String) async {
        guard let outbound = gate.nextSend(sessionID) else { return }
        if let upTo = outbound.reserveUpTo {
            // Durable before the number is used, so a host taking over starts above it.
            guard (try? await sessionStore.reserveSend(id: sessionID, upTo: upTo)) != nil else { return }
        }
        guard let envelope = try? VaultEnvelope.seal(
            plaintext, key: outbound.key, direction: .vaultToApp, sessionID: sessionID, seq: outbound.seq, subject: subject,
            random: context.random)
        else { return }
        try? await connection?.publish(envelope.encoded(), to: subject, replyTo: nil, headers: nil)
    }
}

/// The narrow interfaces the runtime gives its parts: pushes and the end of the peer subscription (`PeerLinks`),
/// and a rotated session (`SessionRotateCommand`).
extension VaultRuntime: PeerLinksOwner, AppSessions {
    /// A push to the app's current session (dropped when the app has none yet: it syncs when it connects).
    func push(_ notification: VaultNotification, payload: JSONObject) async {
        guard let sessionID = gate.currentSessionID else { return }
        let message = VaultEventMessage(
            id: VaultID.make(context.random), type: notification.rawValue, payload: payload,
            timestamp: Int64(context.clock.now().timeIntervalSince1970))
        await send(message.encoded(), to: VaultSubjects.notification(guid, notification), sessionID: sessionID)
    }

    func peerLoopEnded() { markEnded() }

    func adopt(_ session: LiveSession, superseding oldID: String, at: Date) {
        gate.adopt(session, superseding: oldID, at: at, now: context.clock.now())
    }
}
