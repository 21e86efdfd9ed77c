import Crypto
import Foundation
import NATSClient
import TesseraJOSE
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

/// What a runtime keeps about its peers between messages: the NATS connections it opened with the credentials its
/// peers gave it, the replay window of each connection, and the acknowledgements commands wait for.
struct PeerState: Sendable {
    struct Link: Sendable {
        /// The NATS user of the credentials the link authenticated with (a rotation by the peer replaces them).
        let user: String
        let connection: any NATSConnection
    }

    enum AckSlot: Sendable {
        case expected
        case arrived
        case waiting(CheckedContinuation<Bool, Never>)
    }

    var links: [String: Link] = [:]
    var windows: [String: ReplayWindow] = [:]
    var acks: [String: AckSlot] = [:]
}

/// Which of a connection's keys opened an inbound envelope.
enum ConnectionKeyUse: Sendable, Equatable {
    case current
    /// This vault's proposed key: the peer has switched, the rotation is complete.
    case pending
    /// A key replaced by a rotation, within the grace period.
    case previous
}

extension VaultRuntime {
    var connectionStore: VaultConnections { VaultConnections(db: context.sql, keyring: keyring) }
    var messageStore: VaultMessages { VaultMessages(db: context.sql, keyring: keyring) }

    // MARK: the peer subscription

    /// Subscribes to `MessageSpace.{guid}.forOwner.>` (what peer vaults publish with the credentials this vault
    /// issued them) and handles those messages in order, in their own loop: a command waiting for a peer's
    /// acknowledgement never holds up the acknowledgement itself.
    func startPeers(on connection: any NATSConnection) async throws {
        let inbound = try await connection.subscribe(to: VaultSubjects.allFromPeers(guid), queue: nil)
        peerLoop = Task { [weak self] in
            do {
                for try await message in inbound { await self?.receivePeer(message) }
            } catch {}
            await self?.markEnded()
        }
    }

    func stopPeers() async {
        peerLoop?.cancel()
        peerLoop = nil
        for link in peers.links.values { await link.connection.close() }
        for case .waiting(let continuation) in peers.acks.values { continuation.resume(returning: false) }
        peers = PeerState()
    }

    /// One peer message: anything that does not authenticate is dropped and counted, never answered.
    func receivePeer(_ message: NATSMessage) async {
        let prefix = VaultSubjects.messageSpace(guid) + ".forOwner."
        guard message.subject.hasPrefix(prefix), message.payload.count <= VaultEnvelope.maxBytes else { return drop(.malformed) }
        let kind = String(message.subject.dropFirst(prefix.count))
        if kind == PeerAck.kind {
            guard let envelope = try? VaultEnvelope(json: message.payload) else { return drop(.malformed) }
            return await receiveAck(envelope, subject: message.subject)
        }
        guard let peerMessage = try? PeerMessage(json: message.payload), peerMessage.kind.rawValue == kind else { return drop(.malformed) }
        switch peerMessage.kind {
        case .connectionAccept: await receiveAccept(peerMessage, subject: message.subject)
        case .connectionRotate: await receiveRotate(peerMessage, subject: message.subject)
        case .connectionRevoke: await receiveRevoke(peerMessage, subject: message.subject)
        case .message: await receiveMessage(peerMessage, subject: message.subject)
        case .readReceipt: await receiveReadReceipt(peerMessage, subject: message.subject)
        case .profile: await receiveProfile(peerMessage, subject: message.subject)
        }
    }

    // MARK: authenticating inbound envelopes

    /// The connection key of two X25519 halves (nil when a stored key is damaged or the peer's is refused).
    func connectionKey(mine: Data?, peer: Data?, _ connectionID: String) -> SymmetricKey? {
        guard let mine, let peer, let privateKey = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: mine) else { return nil }
        return try? VaultSessionKey.deriveConnection(privateKey: privateKey, peerPublicKey: peer, connectionID: connectionID)
    }

    /// The keys an inbound envelope may be under: the current pair, this vault's proposed key (the peer switched to
    /// it), and pairs replaced by a rotation within their grace period.
    func inboundKeys(_ record: ConnectionRecord, now: Int64) -> [(ConnectionKeyUse, SymmetricKey)] {
        let s = record.secrets, id = record.connectionID
        var keys: [(ConnectionKeyUse, SymmetricKey)] = []
        if let key = connectionKey(mine: s.myKey, peer: s.peerKey, id) { keys.append((.current, key)) }
        if let key = connectionKey(mine: s.myPendingKey, peer: s.peerKey, id) { keys.append((.pending, key)) }
        if let until = s.myPreviousUntil, now < until, let key = connectionKey(mine: s.myPreviousKey, peer: s.peerKey, id) {
            keys.append((.previous, key))
        }
        if let until = s.peerPreviousUntil, now < until, let key = connectionKey(mine: s.myKey, peer: s.peerPreviousKey, id) {
            keys.append((.previous, key))
        }
        return keys
    }

    /// Opens an envelope of an accepted connection (`session_id` = connection_id): the connection must be active (or
    /// accepted by this vault and waiting for the inviter), the sender its peer, the seq new in the connection's
    /// replay window, and the tag must verify under one of its keys. Side effects of a genuine envelope: the window
    /// moves (and its floor is saved), a rotation this vault proposed completes when the peer used the new key, and
    /// a connection this vault accepted becomes active (the inviter could only seal this after adopting the accept).
    func authenticate(_ envelope: VaultEnvelope, subject: String, senderGUID: String?) async -> (ConnectionRecord, Data)? {
        let id = envelope.sessionID
        guard let record = try? await connectionStore.load(id) else {
            drop(.unknownSession)
            return nil
        }
        let accepted = record.status == .active || (record.status == .pending && record.secrets.role == .accepter)
        guard accepted, let peer = record.secrets.peerGUID, senderGUID.map({ $0 == peer }) ?? true else {
            drop(.unknownSession)
            return nil
        }
        var window = peers.windows[id] ?? ReplayWindow(floor: record.recvSeq)
        if let reason = window.check(envelope.seq) {
            drop(reason)
            return nil
        }
        let now = context.clock.now()
        for (use, key) in inboundKeys(record, now: Int64(now.timeIntervalSince1970)) {
            guard let plaintext = try? envelope.open(key: key, direction: .vaultToVault, subject: subject) else { continue }
            window.accept(envelope.seq)
            peers.windows[id] = window
            try? await connectionStore.raiseRecvSeq(id, to: window.highest)
            if use == .pending { await completeRotation(id) }
            if record.status == .pending {
                _ = try? await connectionStore.update(id, now: now) { record in
                    guard record.status == .pending else { return false }
                    record.status = .active
                    return true
                }
            }
            return (record, plaintext)
        }
        drop(.badTag)
        return nil
    }

    /// A peer body from an authenticated plaintext (nil when it is not one).
    func body<Body: PeerMessageBody>(_ type: Body.Type, _ plaintext: Data) -> Body? {
        guard let object = try? JSONValue.parse(plaintext, limits: VaultLimits.json).objectValue else { return nil }
        return try? Body(json: object)
    }

    // MARK: sending

    /// Seals `body` under the connection's current key with the connection's next seq and publishes it on
    /// `MessageSpace.{peer}.forOwner.{kind}` with the credentials the peer gave. With `expectAck`, the
    /// acknowledgement is looked for from before the publish (it may arrive before the caller waits for it).
    func sendPeer<Body: PeerMessageBody>(
        _ body: Body, on record: ConnectionRecord, senderKey: Data? = nil, expectAck: Bool = false
    ) async throws(PeerSendFailure) -> UInt64 {
        let id = record.connectionID, s = record.secrets
        guard let peer = s.peerGUID, let credentials = s.peerCredentials,
            let key = connectionKey(mine: s.myKey, peer: s.peerKey, id)
        else { throw .unusable }
        guard let seq = try? await connectionStore.nextSendSeq(id) else { throw .unreachable }
        let subject = VaultSubjects.peer(peer, kind: Body.kind.rawValue)
        guard let message = try? PeerMessage.seal(
            body, key: key, connectionID: id, senderGUID: guid, senderConnectionKey: senderKey, seq: seq, subject: subject,
            random: context.random)
        else { throw .unusable }
        let slot = "\(id)|\(seq)"
        if expectAck { peers.acks[slot] = .expected }
        do {
            try await publishToPeer(message.encoded(), subject: subject, connectionID: id, credentials: credentials)
        } catch {
            peers.acks[slot] = nil
            throw error
        }
        return seq
    }

    /// Publishes and waits until the peer's bus confirmed it (`flush`: nats-server reports a refused publish then).
    /// A cached link that fails is replaced once: the bus may have restarted.
    func publishToPeer(_ bytes: Data, subject: String, connectionID: String, credentials: String) async throws(PeerSendFailure) {
        for attempt in 0..<2 {
            let link: any NATSConnection
            do {
                link = try await peerLink(connectionID, credentials: credentials)
            } catch {
                throw Self.classify(error)
            }
            do {
                try await link.publish(bytes, to: subject, replyTo: nil, headers: nil)
                try await link.flush(timeout: ConnectionPolicy.publishTimeout)
                return
            } catch {
                await closePeerLink(connectionID)
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
    private func peerLink(_ connectionID: String, credentials credsFile: String) async throws -> any NATSConnection {
        let credentials = try NATSCredentials(credsFile: credsFile)
        let user = credentials.userKey.publicKeyString
        if let link = peers.links[connectionID], link.user == user { return link.connection }
        await closePeerLink(connectionID)
        let connection = try await context.bus.connector.connect(credentials: credentials, name: "vault-peer")
        // Another task of this actor may have opened one meanwhile: keep one.
        if let link = peers.links[connectionID], link.user == user {
            await connection.close()
            return link.connection
        }
        peers.links[connectionID] = PeerState.Link(user: user, connection: connection)
        return connection
    }

    func closePeerLink(_ connectionID: String) async {
        if let link = peers.links.removeValue(forKey: connectionID) { await link.connection.close() }
    }

    // MARK: revocation

    /// Revokes NATS users this vault issued: recorded in `vt_revocations`, then the user's account JWT is pushed
    /// again with every revocation recorded so far (a push replaces the previous JWT). nats-server then closes
    /// their connections and refuses them.
    func revokeIssued(_ users: [String]) async throws {
        guard !users.isEmpty else { return }
        let store = connectionStore
        try await store.addRevocations(users, at: Int64(context.clock.now().timeIntervalSince1970))
        let jwt = try nats.accountJWT(revocations: try await store.revocations())
        try await context.bus.publishAccount(jwt)
    }
}
