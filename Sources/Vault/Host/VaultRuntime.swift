import Crypto
import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraJOSE
import VaultProtocol

/// One user's running vault on this host: its NATS connection (in the user's account), its app sessions and the
/// handling of every command, one at a time in the order the bus delivers them. Anything that does not decrypt and
/// verify is dropped and counted, never answered (an answer in the clear would tell an attacker what it got right).
actor VaultRuntime {
    let userGUID: String
    let guid: String
    let context: VaultHostContext
    let keyring: VaultKeyring
    let identityKey: Curve25519.Signing.PrivateKey
    let nats: VaultNATSIdentity
    var connection: (any NATSConnection)?
    private var loop: Task<Void, Never>?
    var sessions: [String: LiveSession] = [:]
    /// The session pushes go to: the one the app used or created last.
    var currentSessionID: String?
    private(set) var drops = VaultDropCounters()
    /// Read-only commands being handled beside the command loop; past the limit they run in line (back-pressure).
    var readsInFlight = 0
    /// Sealed `vt_records` rows read lately (see `VaultRecordCache`).
    let recordCache = VaultRecordCache()
    static let maxReadsInFlight = 64
    /// The app's newest NATS credentials: when they expire and how long they were issued for (loaded when first needed).
    var appCredentialsLife: (expires: Date, lifetime: TimeInterval)?
    var rotatingCredentials = false
    /// True once the connection ended by itself (the host starts the vault again).
    private(set) var ended = false
    /// Peer vaults: their messages' loop, the links to their buses, replay windows and awaited acknowledgements.
    var peerLoop: Task<Void, Never>?
    var peers = PeerState()
    /// Receive reservations being written, per session (see `reserveReceive`), and how one is written (tests hold
    /// or fail it).
    var pendingReservations: [String: PendingReservation] = [:]
    var writeReservation: @Sendable (_ sessionID: String, _ upTo: UInt64) async -> Bool

    init(row: VaultRow, context: VaultHostContext) throws {
        userGUID = row.id
        guid = try VaultSubjects.guid(userGUID: row.id)
        self.context = context
        let keyring = try context.store.keyring(row)
        self.keyring = keyring
        identityKey = try context.store.identityKey(row)
        nats = VaultNATSIdentity(bus: context.bus, userGUID: row.id, guid: guid, clock: context.clock, random: context.random)
        let store = VaultSessionStore(db: context.sql, keyring: keyring)
        writeReservation = { sessionID, upTo in (try? await store.reserveReceive(id: sessionID, upTo: upTo)) != nil }
    }

    var sessionStore: VaultSessionStore { VaultSessionStore(db: context.sql, keyring: keyring) }

    func start() async throws {
        let connection = try await context.bus.connector.connect(credentials: try nats.vaultCredentials(), name: "vault-" + guid)
        self.connection = connection
        do {
            let commands = try await connection.subscribe(to: VaultSubjects.allCommands(guid), queue: nil)
            try await startPeers(on: connection)
            // The subscription is registered at the server before the vault reports itself running.
            try await connection.flush(timeout: .seconds(5))
            loop = Task { [weak self] in
                do {
                    for try await message in commands { await self?.receive(message) }
                } catch {}
                await self?.markEnded()
            }
        } catch {
            await connection.close()
            throw error
        }
    }

    func stop() async {
        loop?.cancel()
        loop = nil
        await stopPeers()
        await connection?.close()
        connection = nil
        sessions.removeAll()
        pendingReservations.removeAll()
        recordCache.invalidate()
    }

    func markEnded() { if loop != nil { ended = true } }

    func drop(_ reason: VaultDropReason) { drops.record(reason) }

    // MARK: receiving

    private var commandPrefix: String { VaultSubjects.ownerSpace(guid) + ".forVault." }

    func receive(_ message: NATSMessage) async {
        guard message.subject.hasPrefix(commandPrefix) else { return drop(.malformed) }
        let type = String(message.subject.dropFirst(commandPrefix.count))
        if type == VaultSubjects.bootstrapType { return await bootstrap(message) }
        guard message.payload.count <= VaultEnvelope.maxBytes, let envelope = try? VaultEnvelope(json: message.payload) else {
            return drop(.malformed)
        }
        guard var session = await session(envelope.sessionID) else { return drop(.unknownSession) }
        if let reason = session.window.check(envelope.seq) { return drop(reason) }
        guard let plaintext = try? envelope.open(key: session.key, direction: .appToVault, subject: message.subject) else {
            return drop(.badTag)
        }
        session.window.accept(envelope.seq)
        sessions[session.id] = session
        currentSessionID = session.id
        guard let event = try? VaultEventMessage(json: plaintext), event.type == type, Self.isEventID(event.id) else {
            return drop(.malformed)
        }
        // Nothing is answered above the session's saved floor, so that a vault restored from the database (a
        // restart, a takeover) drops this envelope, read or write, if it comes again (`SeqReservation`).
        guard await reserveReceive(sessionID: session.id, seq: envelope.seq) else { return drop(.unreserved) }
        let handler = VaultHandler(rawValue: type)
        if let handler, handler.readsOnly, readsInFlight < Self.maxReadsInFlight {
            // A read changes nothing and records nothing: it runs beside the commands that follow (its database
            // wait overlaps their decryption), on this actor. Writes stay one at a time, in the bus's order.
            readsInFlight += 1
            let sessionID = session.id
            Task {
                let response = await handle(event, sessionID: sessionID)
                await send(response.encoded(), to: VaultSubjects.reply(guid, type: type, id: event.id), sessionID: sessionID)
                readsInFlight -= 1
            }
            return
        }
        let response = await handle(event, sessionID: session.id)
        await send(response.encoded(), to: VaultSubjects.reply(guid, type: type, id: event.id), sessionID: session.id)
    }

    /// 128 random bits in RFC 4648 base32: session, connection, message, credential and event ids. Letters and digits
    /// only, so an id typed after a command (`tessera vault connect revoke ID`) is never read as an option.
    func newID() -> String { Base32.encode(context.random.bytes(16)) }

    /// Event ids become a subject token of the reply: letters, digits, `-` and `_`, at most 64.
    static func isEventID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 45 || $0 == 95 }
    }

    /// The session in memory, or (after a restart or a takeover) from the database, whose window then starts at the
    /// saved receive floor: above every seq a previous runtime answered, so a replay of any of them is dropped.
    func session(_ id: String) async -> LiveSession? {
        let now = context.clock.now()
        if let live = sessions[id] {
            if live.usable(at: now, grace: context.policy.rotationGrace) { return live }
            sessions[id] = nil  // expired, or past its grace after a rotation: never usable again
            return nil
        }
        guard Self.isEventID(id), let stored = try? await sessionStore.load(id: id) else { return nil }
        let live = LiveSession(
            id: id, key: stored.key, window: ReplayWindow(floor: stored.receiveReserved), receiveReserved: stored.receiveReserved,
            expiresAt: stored.expiresAt, supersededAt: stored.supersededAt, sendSeq: stored.sendReserved, sendReserved: stored.sendReserved)
        sessions[id] = live
        return live.usable(at: now, grace: context.policy.rotationGrace) ? live : nil
    }

    /// Forgets the sessions that can no longer be used (called when a session is added).
    func pruneSessions() {
        let now = context.clock.now()
        sessions = sessions.filter { $0.value.usable(at: now, grace: context.policy.rotationGrace) || $0.key == currentSessionID }
    }

    // MARK: sending

    /// Encrypts `plaintext` for the app under `sessionID` and publishes it on `subject`.
    func send(_ plaintext: Data, to subject: String, sessionID: String) async {
        guard var session = sessions[sessionID] else { return }
        session.sendSeq += 1
        let seq = session.sendSeq
        let mustReserve = seq > session.sendReserved
        if mustReserve { session.sendReserved = seq + context.policy.sendReservation }
        sessions[sessionID] = session
        if mustReserve {
            // Durable before the number is used, so a host taking over starts above it.
            guard (try? await sessionStore.reserveSend(id: sessionID, upTo: session.sendReserved)) != nil else { return }
        }
        guard let envelope = try? VaultEnvelope.seal(
            plaintext, key: session.key, direction: .vaultToApp, sessionID: sessionID, seq: seq, subject: subject,
            random: context.random)
        else { return }
        try? await connection?.publish(envelope.encoded(), to: subject, replyTo: nil, headers: nil)
    }

    /// A push to the app's current session (dropped when the app has none yet: it syncs when it connects).
    func push(_ notification: VaultNotification, payload: JSONObject) async {
        guard let sessionID = currentSessionID else { return }
        let message = VaultEventMessage(
            id: newID(), type: notification.rawValue, payload: payload,
            timestamp: Int64(context.clock.now().timeIntervalSince1970))
        await send(message.encoded(), to: VaultSubjects.notification(guid, notification), sessionID: sessionID)
    }
}
