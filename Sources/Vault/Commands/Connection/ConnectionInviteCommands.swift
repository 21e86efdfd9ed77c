import Crypto
import Foundation
import NATSClient
import VaultProtocol

// Making a connection (module README, "Connections and messages"): each side holds NATS credentials the other issued
// (publish only to the issuer's `MessageSpace.{guid}.forOwner.>`) and an X25519 key; the connection key is
// `VaultSessionKey.deriveConnection` of the two. The accept's authenticity: `PeerLinks.receiveAccept`.

/// `connection.create-invite`: a connection key and credentials for the future peer; the invite carries both (with
/// the connection id and this vault's guid). The label stays private to this vault. A peer command: it first sweeps
/// expired invites, which pushes the account JWT.
enum ConnectionCreateInviteCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: ConnectionCreateInviteRequest, in context: CommandContext) async throws -> ConnectionCreateInviteResult {
        let now = context.now
        await context.sweepExpiredInvites()
        let id = VaultID.make(context.random)
        let key = try context.newAgreementKey()
        let issued = try context.nats.connectionCredentials(connectionID: id, expires: now.addingTimeInterval(ConnectionPolicy.credentialLifetime))
        let expires = now.addingTimeInterval(TimeInterval(request.ttlSeconds))
        let secrets = ConnectionSecrets(role: .inviter, label: request.label ?? "", myKey: key.rawRepresentation, issued: issued)
        try await context.connections.insert(id, status: .pending, secrets: secrets, inviteExpiresAt: expires, now: now)
        let invite = ConnectionInvite(
            connectionID: id, inviterGUID: context.guid, inviterConnectionKey: key.publicKey.rawRepresentation, credentials: issued.credsFile,
            natsEndpoint: context.nats.bus.endpoint, expiresAt: Int64(expires.timeIntervalSince1970))
        return ConnectionCreateInviteResult(connectionID: id, invite: invite.encoded(), expiresAt: Int64(expires.timeIntervalSince1970))
    }
}

/// `connection.store-credentials`: accepts an invite. The inviter's credentials are checked and kept (sealed), this
/// vault's key and credentials for the inviter are made, and `connection.accept` goes to the inviter with them.
/// `active` once the inviter acknowledged it; `pending` when it did not answer in time (accepting the same invite
/// again sends the same accept again).
enum ConnectionStoreCredentialsCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: ConnectionStoreCredentialsRequest, in context: CommandContext) async throws -> ConnectionStoreCredentialsResult {
        let now = context.now
        let invite: ConnectionInvite
        do {
            invite = try ConnectionInvite(string: request.invite)
        } catch {
            throw VaultEventError(code: "invalid_request", message: "the invite: \(error)")
        }
        let id = invite.connectionID
        guard invite.inviterGUID != context.guid else { throw VaultEventError(code: "invalid_request", message: "the invite is this vault's own") }
        guard invite.expiresAt >= Int64(now.timeIntervalSince1970) else {
            throw VaultEventError(code: "invite_expired", message: "the invite expired")
        }
        _ = try PeerCredentials(invite.credentials, peerGUID: invite.inviterGUID, identity: context.nats.bus.identity, now: now)
        let connections = context.connections
        var record: ConnectionRecord
        if let existing = try await connections.load(id) {
            guard existing.secrets.role == .accepter, existing.secrets.peerGUID == invite.inviterGUID else {
                throw VaultEventError.alreadyExists("connection \(id)")
            }
            switch existing.status {
            case .revoked: throw VaultEventError.connectionRevoked(id)
            case .active: return ConnectionStoreCredentialsResult(connectionID: id, peerGUID: invite.inviterGUID, status: .active)
            case .pending: record = existing
            }
        } else {
            let key = try context.newAgreementKey()
            let issued = try context.nats.connectionCredentials(connectionID: id, expires: now.addingTimeInterval(ConnectionPolicy.credentialLifetime))
            let secrets = ConnectionSecrets(
                role: .accepter, label: request.label ?? invite.label ?? "", peerGUID: invite.inviterGUID, myKey: key.rawRepresentation,
                peerKey: invite.inviterConnectionKey, peerCredentials: invite.credentials, issued: issued)
            do {
                try await connections.insert(id, status: .pending, secrets: secrets, inviteExpiresAt: nil, now: now)
            } catch VaultConnections.Failure.alreadyExists {
                throw VaultEventError.alreadyExists("connection \(id)")
            }
            guard let inserted = try await connections.load(id) else { throw VaultEventError.notFound("connection \(id)") }
            record = inserted
        }
        guard let issued = record.secrets.issued, let mine = record.secrets.myKey,
            let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: mine)
        else { throw VaultEventError.connectionRevoked(id) }
        let seq: UInt64
        do {
            seq = try await context.peers.send(
                PeerConnectionAccept(credentials: issued.credsFile, accepterGUID: context.guid), on: record,
                senderKey: key.publicKey.rawRepresentation, expectAck: true)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        // The acknowledgement opens under the connection key, which activates the connection (`PeerLinks.authenticate`).
        _ = await context.peers.awaitAck(id, seq: seq)
        let status = try await connections.load(id)?.status ?? .pending
        return ConnectionStoreCredentialsResult(connectionID: id, peerGUID: invite.inviterGUID, status: status)
    }
}

extension CommandContext {
    /// Invites nobody accepted in time: their credentials are revoked, so an invite found later is worthless.
    func sweepExpiredInvites() async {
        let connections = self.connections, now = self.now
        guard let all = try? await connections.all() else { return }
        let expired = all.filter { record in
            record.status == .pending && record.secrets.role == .inviter && (record.inviteExpiresAt.map { $0 < now } ?? false)
        }
        guard !expired.isEmpty, (try? await revocations.revoke(expired.flatMap(\.secrets.issuedUsers), now: now)) != nil else { return }
        for record in expired {
            _ = try? await connections.update(record.connectionID, now: now) { record in
                guard record.status == .pending else { return false }
                record.status = .revoked
                record.secrets = record.secrets.wiped()
                return true
            }
        }
    }
}
