import Foundation
import NATSClient
import ServiceSupport
import TesseraJOSE
import VaultProtocol

/// What peer links tell the vault they belong to (`VaultRuntime`): a push for its app, and that the subscription
/// ended (the host then starts the vault again).
protocol PeerLinksOwner: AnyObject, Sendable {
    func push(_ notification: VaultNotification, payload: JSONObject) async
    func peerLoopEnded() async
}

/// A vault's side of its connections with peer vaults (module README, "Connections and messages"): the loop of
/// their messages on `MessageSpace.{guid}.forOwner.>`, the NATS connections opened with the credentials the peers
/// gave, each connection's replay window, and the acknowledgements commands wait for. An actor of its own, beside
/// the runtime: a command waiting for a peer's acknowledgement (`PeerChannel`) never holds up the acknowledgement
/// itself, nor the app's next command.
actor PeerLinks {
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

    let guid: String
    let sql: ServiceSQL
    let keyring: VaultKeyring
    let nats: VaultNATSIdentity
    private weak var owner: (any PeerLinksOwner)?
    private var loop: Task<Void, Never>?
    var links: [String: Link] = [:]
    var windows: [String: ReplayWindow] = [:]
    var acks: [String: AckSlot] = [:]
    /// Peer envelopes dropped (and never answered) per reason.
    private(set) var drops = VaultDropCounters()

    init(sql: ServiceSQL, keyring: VaultKeyring, nats: VaultNATSIdentity) {
        guid = nats.guid
        self.sql = sql
        self.keyring = keyring
        self.nats = nats
    }

    var bus: VaultBus { nats.bus }
    var connections: VaultConnections { VaultConnections(db: sql, keyring: keyring) }
    var messages: VaultMessages { VaultMessages(db: sql, keyring: keyring) }
    var revocations: NATSRevocations { NATSRevocations(connections: connections, nats: nats) }
    func now() -> Date { nats.clock.now() }

    /// Subscribes to `MessageSpace.{guid}.forOwner.>` (what peer vaults publish with the credentials this vault
    /// issued them) on the vault's own connection and handles those messages in order, in their own loop.
    func start(on connection: any NATSConnection, owner: any PeerLinksOwner) async throws {
        self.owner = owner
        let inbound = try await connection.subscribe(to: VaultSubjects.allFromPeers(guid), queue: nil)
        loop = Task { [weak self] in
            do {
                for try await message in inbound { await self?.receive(message) }
            } catch {}
            await self?.loopEnded()
        }
    }

    private func loopEnded() async { await owner?.peerLoopEnded() }

    func stop() async {
        loop?.cancel()
        loop = nil
        for link in links.values { await link.connection.close() }
        for case .waiting(let continuation) in acks.values { continuation.resume(returning: false) }
        links = [:]
        windows = [:]
        acks = [:]
    }

    func drop(_ reason: VaultDropReason) {
        drops.record(reason)
        VaultMetrics.dropped(reason)
    }

    func push(_ notification: VaultNotification, payload: JSONObject) async {
        await owner?.push(notification, payload: payload)
    }

    /// One peer message: anything that does not authenticate is dropped and counted, never answered.
    func receive(_ message: NATSMessage) async {
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
}
