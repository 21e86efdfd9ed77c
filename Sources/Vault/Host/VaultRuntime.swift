import Crypto
import Foundation
import NATSClient
import VaultProtocol

/// One user's running vault on this host: a thin actor that owns the three parts and does their I/O. Its NATS
/// connection (in the user's account) delivers the app's commands in order; each passes the session gate
/// (`SessionGate`: session, replay window, tag, receive floor), then runs as its command says (`VaultCommand`,
/// `CommandExecutor`), and its answer goes back sealed under the session. Peer vaults are `PeerLinks`. Anything that
/// does not decrypt and verify is dropped and counted, never answered (an answer in the clear would tell an attacker
/// what it got right). Module README, "Commands".
actor VaultRuntime {
    let userGUID: String
    let guid: String
    let context: VaultHostContext
    let keyring: VaultKeyring
    let identityKey: Curve25519.Signing.PrivateKey
    let nats: VaultNATSIdentity
    var connection: (any NATSConnection)?
    private var loop: Task<Void, Never>?
    /// The app's sessions (a value: this actor loads and saves for it).
    var gate: SessionGate
    /// Runs commands: the transaction and the record of each write's answer.
    let executor: CommandExecutor
    /// Peer vaults: their messages' loop, the links to their buses, replay windows and awaited acknowledgements.
    let peers: PeerLinks
    private(set) var drops = VaultDropCounters()
    /// Read commands being handled beside the command loop; past the limit they run in line (back-pressure).
    var readsInFlight = 0
    /// Sealed `vt_records` rows read lately (see `VaultRecordCache`).
    let recordCache = VaultRecordCache()
    static let maxReadsInFlight = 64
    let appCredentials: AppCredentials
    var rotatingCredentials = false
    /// True once the connection ended by itself (the host starts the vault again).
    private(set) var ended = false
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
        let nats = VaultNATSIdentity(bus: context.bus, userGUID: row.id, guid: guid, clock: context.clock, random: context.random)
        self.nats = nats
        gate = SessionGate(grace: context.policy.rotationGrace, sendBlock: context.policy.sendReservation)
        executor = CommandExecutor(sql: context.sql, keyring: keyring)
        peers = PeerLinks(sql: context.sql, keyring: keyring, nats: nats)
        appCredentials = AppCredentials(nats: nats, maxHours: context.policy.maxCredentialTTLHours)
        let store = VaultSessionStore(db: context.sql, keyring: keyring)
        writeReservation = { sessionID, upTo in (try? await store.reserveReceive(id: sessionID, upTo: upTo)) != nil }
    }

    var sessionStore: VaultSessionStore { VaultSessionStore(db: context.sql, keyring: keyring) }

    func start() async throws {
        let connection = try await context.bus.connector.connect(credentials: try nats.vaultCredentials(), name: "vault-" + guid)
        self.connection = connection
        VaultMetrics.watch(connection)
        do {
            let commands = try await connection.subscribe(to: VaultSubjects.allCommands(guid), queue: nil)
            try await peers.start(on: connection, owner: self)
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
        await peers.stop()
        await connection?.close()
        connection = nil
        gate.removeAll()
        pendingReservations.removeAll()
        recordCache.invalidate()
    }

    func markEnded() { if loop != nil { ended = true } }

    func drop(_ reason: VaultDropReason) {
        drops.record(reason)
        VaultMetrics.dropped(reason)
    }

    /// Messages dropped (and never answered) per reason: the app's and the peers'.
    func dropCounts() async -> [VaultDropReason: Int] {
        var counts = drops.counts
        for (reason, count) in await peers.drops.counts { counts[reason, default: 0] += count }
        return counts
    }

    // MARK: receiving

    private var commandPrefix: String { VaultSubjects.ownerSpace(guid) + ".forVault." }

    func receive(_ message: NATSMessage) async {
        guard message.subject.hasPrefix(commandPrefix) else { return drop(.malformed) }
        let type = String(message.subject.dropFirst(commandPrefix.count))
        if type == VaultSubjects.bootstrapType { return await bootstrap(message) }
        guard message.payload.count <= VaultEnvelope.maxBytes, let envelope = try? VaultEnvelope(json: message.payload) else {
            return drop(.malformed)
        }
        guard let (session, plaintext) = await open(envelope, subject: message.subject) else { return }
        guard let event = try? VaultEventMessage(json: plaintext), event.type == type, VaultID.isToken(event.id) else {
            return drop(.malformed)
        }
        // Nothing is answered above the session's saved floor, so that a vault restored from the database (a
        // restart, a takeover) drops this envelope, read or write, if it comes again (`SeqReservation`).
        guard await reserveReceive(sessionID: session.id, seq: envelope.seq) else { return drop(.unreserved) }
        let command = VaultCommands.command(for: type)
        let reply = VaultSubjects.reply(guid, type: type, id: event.id)
        if let command, command.effect == .read, readsInFlight < Self.maxReadsInFlight {
            // A read changes nothing and records nothing: it runs beside the commands that follow (its database
            // wait overlaps their decryption), on this actor. Writes stay one at a time, in the bus's order.
            readsInFlight += 1
            Task {
                let answer = await handle(event, command, session: session)
                await send(answer, to: reply, sessionID: session.id)
                readsInFlight -= 1
            }
            return
        }
        await send(await handle(event, command, session: session), to: reply, sessionID: session.id)
    }

    /// The gate's verdict on an envelope, loading its session from the database when the gate asks (after a restart
    /// or a takeover); a drop is counted here.
    private func open(_ envelope: VaultEnvelope, subject: String) async -> (SessionGate.Keys, Data)? {
        let now = context.clock.now()
        var opening = gate.open(envelope, subject: subject, now: now)
        if case .load(let id) = opening {
            guard let stored = try? await sessionStore.load(id: id), gate.restore(stored, now: now) != nil else {
                drop(.unknownSession)
                return nil
            }
            opening = gate.open(envelope, subject: subject, now: now)
        }
        switch opening {
        case .opened(let session, let plaintext): return (session, plaintext)
        case .dropped(let reason): drop(reason)
        case .load: drop(.unknownSession)
        }
        return nil
    }

    /// One decrypted command, answered as the bytes that go out (`CommandExecutor`).
    func handle(_ event: VaultEventMessage, _ command: (any VaultCommand.Type)?, session: SessionGate.Keys) async -> Data {
        let now = context.clock.now()
        guard let command else { return CommandExecutor.unknownCommand(event, now: now) }
        let effect = command.effect
        if effect != .session { await rotateCredentialsIfDue(now: now) }
        defer { if effect.mayWriteRecords { recordCache.invalidate() } }
        let commandContext = CommandContext(
            userGUID: userGUID, guid: guid, db: context.sql, keyring: keyring, cache: effect == .read ? recordCache : nil, now: now,
            random: context.random, policy: context.policy, session: session, nats: nats, appCredentials: appCredentials, peers: peers,
            sessions: self)
        return await executor.run(command, event, in: commandContext)
    }

    /// The session in memory, or (after a restart or a takeover) from the database, whose window then starts at the
    /// saved receive floor: above every seq a previous runtime answered, so a replay of any of them is dropped.
    func session(_ id: String) async -> LiveSession? {
        let now = context.clock.now()
        switch gate.lookup(id, now: now) {
        case .live(let live): return live
        case .unknown: return nil
        case .stored:
            guard let stored = try? await sessionStore.load(id: id) else { return nil }
            return gate.restore(stored, now: now)
        }
    }
}
