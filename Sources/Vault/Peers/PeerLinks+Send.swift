import Foundation
import NATSClient
import VaultProtocol

/// Why a message to a peer vault did not go out.
enum PeerSendFailure: Error, Equatable {
    /// The peer's bus refused the credentials the peer gave us (revoked, expired) or the subject.
    case refused
    /// The bus could not be reached or did not confirm in time.
    case unreachable
    /// The connection has no usable keys or credentials (not accepted yet, or revoked).
    case unusable
}

extension PeerLinks: PeerChannel {
    /// Seals `body` under the connection's current key with the connection's next seq and publishes it on
    /// `MessageSpace.{peer}.forOwner.{kind}` with the credentials the peer gave. With `expectAck`, the
    /// acknowledgement is looked for from before the publish (it may arrive before the caller waits for it).
    func send<Body: PeerMessageBody>(
        _ body: Body, on record: ConnectionRecord, senderKey: Data?, expectAck: Bool
    ) async throws(PeerSendFailure) -> UInt64 {
        let id = record.connectionID, s = record.secrets
        guard let peer = s.peerGUID, let credentials = s.peerCredentials,
            let key = ConnectionKeys.derive(mine: s.myKey, peer: s.peerKey, id)
        else { throw .unusable }
        guard let seq = try? await connections.nextSendSeq(id) else { throw .unreachable }
        let subject = VaultSubjects.peer(peer, kind: Body.kind.rawValue)
        guard let message = try? PeerMessage.seal(
            body, key: key, connectionID: id, senderGUID: guid, senderConnectionKey: senderKey, seq: seq, subject: subject,
            random: nats.random)
        else { throw .unusable }
        let slot = Self.ackSlot(id, seq)
        if expectAck { acks[slot] = .expected }
        do {
            try await publish(message.encoded(), subject: subject, connectionID: id, credentials: credentials)
        } catch {
            acks[slot] = nil
            throw error
        }
        return seq
    }

    /// Publishes and waits until the peer's bus confirmed it (`flush`: nats-server reports a refused publish then).
    /// A cached link that fails is replaced once: the bus may have restarted.
    func publish(_ bytes: Data, subject: String, connectionID: String, credentials: String) async throws(PeerSendFailure) {
        for attempt in 0..<2 {
            let link: any NATSConnection
            do {
                link = try await self.link(connectionID, credentials: credentials)
            } catch {
                throw Self.classify(error)
            }
            do {
                try await link.publish(bytes, to: subject, replyTo: nil, headers: nil)
                try await link.flush(timeout: ConnectionPolicy.publishTimeout)
                return
            } catch {
                await closeLink(connectionID)
                let failure = Self.classify(error)
                if failure == .refused || attempt == 1 { throw failure }
            }
        }
    }

    static func classify(_ error: any Error) -> PeerSendFailure {
        switch error as? NATSError {
        case .authorizationViolation?, .permissionViolation?, .jwtExpired?, .malformedCreds?: return .refused
        default: return .unreachable
        }
    }

    /// The NATS connection into the peer's account with the credentials it gave (opened once, kept).
    private func link(_ connectionID: String, credentials credsFile: String) async throws -> any NATSConnection {
        let credentials = try NATSCredentials(credsFile: credsFile)
        let user = credentials.userKey.publicKeyString
        if let link = links[connectionID], link.user == user { return link.connection }
        await closeLink(connectionID)
        let connection = try await bus.connector.connect(credentials: credentials, name: "vault-peer")
        // Another task of this actor may have opened one meanwhile: keep one.
        if let link = links[connectionID], link.user == user {
            await connection.close()
            return link.connection
        }
        links[connectionID] = Link(user: user, connection: connection)
        return connection
    }

    func closeLink(_ connectionID: String) async {
        if let link = links.removeValue(forKey: connectionID) { await link.connection.close() }
    }

    /// Closes the link to a revoked peer and wipes the connection's keys and credentials.
    func forget(_ connectionID: String, now: Date) async {
        await closeLink(connectionID)
        windows[connectionID] = nil
        _ = try? await connections.update(connectionID, now: now) { record in
            record.secrets = record.secrets.wiped()
            return true
        }
    }
}
