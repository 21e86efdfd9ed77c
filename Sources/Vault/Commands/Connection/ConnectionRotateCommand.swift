import Crypto
import Foundation
import VaultProtocol

/// `connection.rotate`: a new key and new credentials for the peer, proposed in `connection.rotate` (sealed under the
/// current key). The rotation completes when the peer shows it switched — its acknowledgement (or any envelope)
/// opens under the new key (`PeerLinks.completeRotation`) — and only then are the old credentials revoked. Without
/// an answer the current keys stay in use and the command fails with `peer_unreachable`; a retry proposes the same
/// key again. The peer's side is `PeerLinks.receiveRotate`.
enum ConnectionRotateCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: ConnectionRotateRequest, in context: CommandContext) async throws -> ConnectionRotateResult {
        let id = request.connectionID, now = context.now
        let connections = context.connections
        var record = try await context.activeConnection(id)
        if record.secrets.myPendingKey == nil {
            let key = try context.newAgreementKey()
            let issued = try context.nats.connectionCredentials(connectionID: id, expires: now.addingTimeInterval(ConnectionPolicy.credentialLifetime))
            record = try await connections.update(id, now: now) { record in
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
            seq = try await context.peers.send(
                PeerConnectionRotate(credentials: issued.credsFile), on: record, senderKey: key.publicKey.rawRepresentation, expectAck: true)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        guard await context.peers.awaitAck(id, seq: seq), let rotated = try await connections.load(id), rotated.secrets.myPendingKey == nil else {
            throw VaultEventError(code: "peer_unreachable", message: "the peer has not confirmed the rotation: the current keys stay in use, retry")
        }
        return ConnectionRotateResult(connectionID: id, rotatedAt: Int64((rotated.rotatedAt ?? now).timeIntervalSince1970))
    }
}
