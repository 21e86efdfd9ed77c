import Crypto
import Foundation
import VaultProtocol

/// Rotating a connection's keys and the credentials this vault issued for it (the peer's side is
/// `receiveRotate`).
extension VaultRuntime {
    /// `connection.rotate`: a new key and new credentials for the peer, proposed in `connection.rotate` (sealed
    /// under the current key). The rotation completes when the peer shows it switched — its acknowledgement (or any
    /// envelope) opens under the new key — and only then are the old credentials revoked. Without an answer the
    /// current keys stay in use and the command fails with `peer_unreachable`; a retry proposes the same key again.
    func rotateConnection(_ id: String) async throws -> ConnectionRotateResult {
        let now = context.clock.now()
        var record = try await activeConnection(id)
        if record.secrets.myPendingKey == nil {
            let key = try newConnectionKey()
            let issued = try nats.connectionCredentials(connectionID: id, expires: now.addingTimeInterval(ConnectionPolicy.credentialLifetime))
            record = try await connectionStore.update(id, now: now) { record in
                guard record.status == .active, record.secrets.myPendingKey == nil else { return false }
                record.secrets.myPendingKey = key.rawRepresentation
                record.secrets.pendingIssued = issued
                return true
            }
        }
        guard record.status == .active, let pending = record.secrets.myPendingKey, let issued = record.secrets.pendingIssued,
            let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: pending)
        else { throw VaultEventError.connectionRevoked(id) }
        let seq: UInt64
        do {
            seq = try await sendPeer(
                PeerConnectionRotate(credentials: issued.credsFile), on: record, senderKey: key.publicKey.rawRepresentation, expectAck: true)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        guard await awaitAck(id, seq: seq), let rotated = try await connectionStore.load(id), rotated.secrets.myPendingKey == nil else {
            throw VaultEventError(code: "peer_unreachable", message: "the peer has not confirmed the rotation: the current keys stay in use, retry")
        }
        return ConnectionRotateResult(connectionID: id, rotatedAt: Int64((rotated.rotatedAt ?? now).timeIntervalSince1970))
    }

    /// The peer used this vault's proposed key: it becomes the current one (the old one is still accepted for the
    /// grace period), and the credentials it replaced are revoked — the peer publishes with the new ones now.
    func completeRotation(_ id: String) async {
        let now = context.clock.now()
        guard let record = try? await connectionStore.update(id, now: now, { record in
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
        guard !retired.isEmpty, (try? await revokeIssued(retired)) != nil else { return }
        _ = try? await connectionStore.update(id, now: now) { record in
            record.secrets.retired.removeAll { retired.contains($0) }
            return true
        }
    }
}
