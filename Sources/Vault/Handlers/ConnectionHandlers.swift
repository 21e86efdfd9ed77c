import Crypto
import Foundation
import NATSClient
import TesseraJOSE
import VaultProtocol

/// `connection.*` from the app. A connection joins two vaults: each holds NATS credentials the other issued (publish
/// only to the issuer's `MessageSpace.{guid}.forOwner.>`) and an X25519 key; the connection key is
/// `VaultSessionKey.deriveConnection` of the two. Design and the accept's authenticity: module README.
enum ConnectionHandlers {
    static func run(_ request: HandlerRequest) async throws -> JSONObject {
        let runtime = request.runtime
        switch request.handler {
        case .connectionCreateInvite:
            return try await runtime.createInvite(ConnectionCreateInviteRequest(payload: request.payload)).result
        case .connectionStoreCredentials:
            return try await runtime.acceptInvite(ConnectionStoreCredentialsRequest(payload: request.payload)).result
        case .connectionRotate:
            return try await runtime.rotateConnection(ConnectionRotateRequest(payload: request.payload).connectionID).result
        case .connectionRevoke:
            return try await runtime.revokeConnection(ConnectionRevokeRequest(payload: request.payload).connectionID).result
        case .connectionList:
            _ = try ConnectionListRequest(payload: request.payload)
            return try await runtime.listConnections().result
        case .connectionGetCredentials:
            return try await runtime.connectionCredentials(ConnectionGetCredentialsRequest(payload: request.payload).connectionID).result
        case .connectionNotifyRevoke:
            _ = try ConnectionNotifyRevokeRequest(payload: request.payload)
            throw VaultEventError(code: "invalid_request", message: "connection.notify-revoke is sent vault to vault: revoke with connection.revoke")
        default:
            throw VaultEventError(code: "invalid_request", message: "not a connection command")
        }
    }
}

extension VaultEventError {
    static func connectionRevoked(_ id: String) -> VaultEventError {
        VaultEventError(code: "connection_revoked", message: "connection \(id) is revoked")
    }
    static func connectionPending(_ id: String) -> VaultEventError {
        VaultEventError(code: "connection_pending", message: "connection \(id) is not accepted yet")
    }

    /// What the app is told when a peer could not be reached or refused us.
    static func peer(_ failure: PeerSendFailure, _ id: String) -> VaultEventError {
        switch failure {
        case .refused: return VaultEventError(code: "connection_revoked", message: "the peer's bus refused the credentials of connection \(id)")
        case .unreachable: return VaultEventError(code: "peer_unreachable", message: "the peer's vault could not be reached")
        case .unusable: return .connectionPending(id)
        }
    }
}

extension VaultRuntime {
    /// The connection a command acts on: it must exist and be active.
    func activeConnection(_ id: String) async throws -> ConnectionRecord {
        guard let record = try await connectionStore.load(id) else { throw VaultEventError.notFound("connection \(id)") }
        switch record.status {
        case .active: return record
        case .pending: throw VaultEventError.connectionPending(id)
        case .revoked: throw VaultEventError.connectionRevoked(id)
        }
    }

    func newConnectionKey() throws -> Curve25519.KeyAgreement.PrivateKey {
        try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: context.random.bytes(32))
    }

    /// `connection.create-invite`: a connection key and credentials for the future peer; the invite carries both
    /// (with the connection id and this vault's guid). The label stays private to this vault.
    func createInvite(_ request: ConnectionCreateInviteRequest) async throws -> ConnectionCreateInviteResult {
        let now = context.clock.now()
        await sweepExpiredInvites(now: now)
        let id = newID()
        let key = try newConnectionKey()
        let issued = try nats.connectionCredentials(connectionID: id, expires: now.addingTimeInterval(ConnectionPolicy.credentialLifetime))
        let expires = now.addingTimeInterval(TimeInterval(request.ttlSeconds))
        let secrets = ConnectionSecrets(role: .inviter, label: request.label ?? "", myKey: key.rawRepresentation, issued: issued)
        try await connectionStore.insert(id, status: .pending, secrets: secrets, inviteExpiresAt: expires, now: now)
        let invite = ConnectionInvite(
            connectionID: id, inviterGUID: guid, inviterConnectionKey: key.publicKey.rawRepresentation, credentials: issued.credsFile,
            natsEndpoint: context.bus.endpoint, expiresAt: Int64(expires.timeIntervalSince1970))
        return ConnectionCreateInviteResult(connectionID: id, invite: invite.encoded(), expiresAt: Int64(expires.timeIntervalSince1970))
    }

    /// Invites nobody accepted in time: their credentials are revoked, so an invite found later is worthless.
    func sweepExpiredInvites(now: Date) async {
        guard let all = try? await connectionStore.all() else { return }
        let expired = all.filter { record in
            record.status == .pending && record.secrets.role == .inviter && (record.inviteExpiresAt.map { $0 < now } ?? false)
        }
        guard !expired.isEmpty, (try? await revokeIssued(expired.flatMap(\.secrets.issuedUsers))) != nil else { return }
        for record in expired {
            _ = try? await connectionStore.update(record.connectionID, now: now) { record in
                guard record.status == .pending else { return false }
                record.status = .revoked
                record.secrets = record.secrets.wiped()
                return true
            }
        }
    }

    /// `connection.store-credentials`: accepts an invite. The inviter's credentials are checked and kept (sealed),
    /// this vault's key and credentials for the inviter are made, and `connection.accept` goes to the inviter with
    /// them. `active` once the inviter acknowledged it; `pending` when it did not answer in time (accepting the same
    /// invite again sends the same accept again).
    func acceptInvite(_ request: ConnectionStoreCredentialsRequest) async throws -> ConnectionStoreCredentialsResult {
        let now = context.clock.now()
        let invite: ConnectionInvite
        do {
            invite = try ConnectionInvite(string: request.invite)
        } catch {
            throw VaultEventError(code: "invalid_request", message: "the invite: \(error)")
        }
        let id = invite.connectionID
        guard invite.inviterGUID != guid else { throw VaultEventError(code: "invalid_request", message: "the invite is this vault's own") }
        guard invite.expiresAt >= Int64(now.timeIntervalSince1970) else {
            throw VaultEventError(code: "invite_expired", message: "the invite expired")
        }
        _ = try PeerCredentials(invite.credentials, peerGUID: invite.inviterGUID, identity: context.bus.identity, now: now)
        var record: ConnectionRecord
        if let existing = try await connectionStore.load(id) {
            guard existing.secrets.role == .accepter, existing.secrets.peerGUID == invite.inviterGUID else {
                throw VaultEventError.alreadyExists("connection \(id)")
            }
            switch existing.status {
            case .revoked: throw VaultEventError.connectionRevoked(id)
            case .active: return ConnectionStoreCredentialsResult(connectionID: id, peerGUID: invite.inviterGUID, status: .active)
            case .pending: record = existing
            }
        } else {
            let key = try newConnectionKey()
            let issued = try nats.connectionCredentials(connectionID: id, expires: now.addingTimeInterval(ConnectionPolicy.credentialLifetime))
            let secrets = ConnectionSecrets(
                role: .accepter, label: request.label ?? invite.label ?? "", peerGUID: invite.inviterGUID, myKey: key.rawRepresentation,
                peerKey: invite.inviterConnectionKey, peerCredentials: invite.credentials, issued: issued)
            do {
                try await connectionStore.insert(id, status: .pending, secrets: secrets, inviteExpiresAt: nil, now: now)
            } catch VaultConnections.Failure.alreadyExists {
                throw VaultEventError.alreadyExists("connection \(id)")
            }
            guard let inserted = try await connectionStore.load(id) else { throw VaultEventError.notFound("connection \(id)") }
            record = inserted
        }
        guard let issued = record.secrets.issued, let mine = record.secrets.myKey,
            let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: mine)
        else { throw VaultEventError.connectionRevoked(id) }
        let seq: UInt64
        do {
            seq = try await sendPeer(
                PeerConnectionAccept(credentials: issued.credsFile, accepterGUID: guid), on: record, senderKey: key.publicKey.rawRepresentation,
                expectAck: true)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        // The acknowledgement opens under the connection key, which activates the connection (`authenticate`).
        _ = await awaitAck(id, seq: seq)
        let status = try await connectionStore.load(id)?.status ?? .pending
        return ConnectionStoreCredentialsResult(connectionID: id, peerGUID: invite.inviterGUID, status: status)
    }

    /// `connection.revoke`: first the credentials this vault issued to the peer are revoked (the account JWT pushed
    /// again with them), so the server refuses the peer from then on; then the peer is told (`connection.revoke`), and
    /// the connection's keys and credentials are wiped. A retry after a failed push pushes again.
    func revokeConnection(_ id: String) async throws -> ConnectionRevokeResult {
        let now = context.clock.now()
        guard try await connectionStore.load(id) != nil else { throw VaultEventError.notFound("connection \(id)") }
        let record = try await connectionStore.update(id, now: now) { record in
            guard record.status != .revoked else { return false }
            record.status = .revoked
            return true
        }
        let users = record.secrets.issuedUsers
        guard !users.isEmpty || record.secrets.peerCredentials != nil else {
            return ConnectionRevokeResult(connectionID: id, revoked: true)
        }
        do {
            try await revokeIssued(users)
        } catch {
            throw VaultEventError(code: "temporarily_unavailable", message: "the revocation could not be published: retry")
        }
        if record.secrets.peerCredentials != nil { _ = try? await sendPeer(PeerConnectionRevoke(), on: record) }
        await forgetPeer(id, now: now)
        return ConnectionRevokeResult(connectionID: id, revoked: true)
    }

    /// Closes the link to a revoked peer and wipes the connection's keys and credentials.
    func forgetPeer(_ id: String, now: Date) async {
        await closePeerLink(id)
        peers.windows[id] = nil
        _ = try? await connectionStore.update(id, now: now) { record in
            record.secrets = record.secrets.wiped()
            return true
        }
    }

    /// `connection.list`: every connection with a peer (an invite nobody accepted yet has none and is not listed;
    /// its answer to `create-invite` is what the app keeps).
    func listConnections() async throws -> ConnectionListResult {
        await sweepExpiredInvites(now: context.clock.now())
        let connections = try await connectionStore.all().compactMap { record -> ConnectionSummary? in
            guard let peer = record.secrets.peerGUID else { return nil }
            return ConnectionSummary(
                connectionID: record.connectionID, peerGUID: peer, label: record.secrets.label, status: record.status,
                createdAt: Int64(record.createdAt.timeIntervalSince1970), rotatedAt: record.rotatedAt.map { Int64($0.timeIntervalSince1970) })
        }
        return ConnectionListResult(connections: connections)
    }

    /// `connection.get-credentials`: what the credentials this vault holds for the connection allow (publish
    /// subjects in the peer's account) and when they expire, read from their user JWT; never the creds themselves.
    func connectionCredentials(_ id: String) async throws -> ConnectionGetCredentialsResult {
        guard let record = try await connectionStore.load(id) else { throw VaultEventError.notFound("connection \(id)") }
        guard record.status != .revoked else { throw VaultEventError.connectionRevoked(id) }
        guard let peer = record.secrets.peerGUID, let creds = record.secrets.peerCredentials,
            let credentials = try? NATSCredentials(credsFile: creds), let jwt = try? NATSJWT<UserClaims>(credentials.jwt)
        else { throw VaultEventError.connectionPending(id) }
        return ConnectionGetCredentialsResult(
            connectionID: id, peerGUID: peer, subjects: jwt.claims.nats.pub.allow ?? [], expiresAt: jwt.claims.exp ?? 0)
    }
}
