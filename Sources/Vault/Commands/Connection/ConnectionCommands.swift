import Foundation
import NATSClient
import VaultProtocol

// The connections a vault holds: revoking one, listing them, what their credentials allow.

/// `connection.revoke`: first the credentials this vault issued to the peer are revoked (the account JWT pushed
/// again with them), so the server refuses the peer from then on; then the peer is told (`connection.revoke`), and
/// the connection's keys and credentials are wiped. A retry after a failed push pushes again.
enum ConnectionRevokeCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: ConnectionRevokeRequest, in context: CommandContext) async throws -> ConnectionRevokeResult {
        let id = request.connectionID, now = context.now
        let connections = context.connections
        guard try await connections.load(id) != nil else { throw VaultEventError.notFound("connection \(id)") }
        let record = try await connections.update(id, now: now) { record in
            guard record.status != .revoked else { return false }
            record.status = .revoked
            return true
        }
        let users = record.secrets.issuedUsers
        guard !users.isEmpty || record.secrets.peerCredentials != nil else {
            return ConnectionRevokeResult(connectionID: id, revoked: true)
        }
        do {
            try await context.revocations.revoke(users, now: now)
        } catch {
            throw VaultEventError(code: "temporarily_unavailable", message: "the revocation could not be published: retry")
        }
        if record.secrets.peerCredentials != nil { _ = try? await context.peers.send(PeerConnectionRevoke(), on: record) }
        await context.peers.forget(id, now: now)
        return ConnectionRevokeResult(connectionID: id, revoked: true)
    }
}

/// `connection.list`: every connection with a peer (an invite nobody accepted yet has none and is not listed; its
/// answer to `create-invite` is what the app keeps). A read that may sweep expired invites: their revocation is safe
/// to repeat.
enum ConnectionListCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ request: ConnectionListRequest, in context: CommandContext) async throws -> ConnectionListResult {
        await context.sweepExpiredInvites()
        let connections = try await context.connections.all().compactMap { record -> ConnectionSummary? in
            guard let peer = record.secrets.peerGUID else { return nil }
            return ConnectionSummary(
                connectionID: record.connectionID, peerGUID: peer, label: record.secrets.label, status: record.status,
                createdAt: Int64(record.createdAt.timeIntervalSince1970), rotatedAt: record.rotatedAt.map { Int64($0.timeIntervalSince1970) })
        }
        return ConnectionListResult(connections: connections)
    }
}

/// `connection.get-credentials`: what the credentials this vault holds for the connection allow (publish subjects in
/// the peer's account) and when they expire, read from their user JWT; never the creds themselves.
enum ConnectionGetCredentialsCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ request: ConnectionGetCredentialsRequest, in context: CommandContext) async throws -> ConnectionGetCredentialsResult {
        let id = request.connectionID
        guard let record = try await context.connections.load(id) else { throw VaultEventError.notFound("connection \(id)") }
        guard record.status != .revoked else { throw VaultEventError.connectionRevoked(id) }
        guard let peer = record.secrets.peerGUID, let creds = record.secrets.peerCredentials,
            let credentials = try? NATSCredentials(credsFile: creds), let jwt = try? NATSJWT<UserClaims>(credentials.jwt)
        else { throw VaultEventError.connectionPending(id) }
        return ConnectionGetCredentialsResult(
            connectionID: id, peerGUID: peer, subjects: jwt.claims.nats.pub.allow ?? [], expiresAt: jwt.claims.exp ?? 0)
    }
}

/// `connection.notify-revoke` is what a vault sends its peer (`PeerLinks.receiveRevoke`), never an app: refused here
/// (after the payload is checked, as every command's is).
enum ConnectionNotifyRevokeCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: ConnectionNotifyRevokeRequest, in context: CommandContext) async throws -> ConnectionNotifyRevokeResult {
        throw VaultEventError(code: "invalid_request", message: "connection.notify-revoke is sent vault to vault: revoke with connection.revoke")
    }
}

extension CommandContext {
    /// The connection a command acts on: it must exist and be active.
    func activeConnection(_ id: String) async throws -> ConnectionRecord {
        guard let record = try await connections.load(id) else { throw VaultEventError.notFound("connection \(id)") }
        switch record.status {
        case .active: return record
        case .pending: throw VaultEventError.connectionPending(id)
        case .revoked: throw VaultEventError.connectionRevoked(id)
        }
    }
}
