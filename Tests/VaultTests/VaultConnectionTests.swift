import Crypto
import Foundation
import NATSClient
import SQLKit
import ServiceSupport
import TesseraCore
import TesseraJOSE
import TesseraTestSupport
import Testing
import VaultClient
import VaultProtocol

@testable import Vault

/// Two users' vaults connected: invite and accept, messages vault to vault with acknowledgements and read receipts,
/// profile broadcasts, rotation and revocation (enforced by the bus), and nothing secret in the database.
@Suite(.serialized)
struct VaultConnectionTests {
    @Test func invitedAcceptedThenMessagesReceiptsAndProfilesFlowBothWays() async throws {
        let pair = try await VaultPair.make()
        let id = try await pair.connect()
        let (guidA, guidB) = (try pair.guid(pair.alice), try pair.guid(pair.bob))

        // Both list the connection active, each with its own label and the other as peer.
        let listedA = try await pair.a.connections(), listedB = try await pair.b.connections()
        #expect(listedA.map(\.connectionID) == [id] && listedB.map(\.connectionID) == [id])
        #expect(listedA.first?.status == .active && listedA.first?.peerGUID == guidB && listedA.first?.label == "Bob")
        #expect(listedB.first?.status == .active && listedB.first?.peerGUID == guidA && listedB.first?.label == "Alice")
        // Each holds credentials for the other's MessageSpace only; the seed is never shown.
        let credentialsA = try await pair.a.connectionCredentials(id)
        #expect(credentialsA.subjects == [VaultSubjects.allFromPeers(guidB)] && credentialsA.peerGUID == guidB)
        #expect(credentialsA.expiresAt > Int64(Date().timeIntervalSince1970) + 300 * 24 * 3600)
        #expect(try await pair.b.connectionCredentials(id).subjects == [VaultSubjects.allFromPeers(guidA)])

        // What B's vault receives and pushes, seen on the bus (encrypted, but countable and replayable).
        let spy = try await pair.observer(
            pair.bob, subscribe: [VaultSubjects.peer(guidB, kind: "message"), VaultSubjects.notification(guidB, .newMessage)],
            publish: [VaultSubjects.allFromPeers(guidB)])
        let sent = try await pair.a.sendMessage("hello bob", to: id, messageID: "m-1")
        #expect(sent.messageID == "m-1" && sent.delivered)
        try await pair.inboxB.wait { $0.count(.newMessage) == 1 }
        let push = try #require(await pair.inboxB.first(.newMessage)).push(NewMessagePush.self)
        #expect(push.content == "hello bob" && push.connectionID == id && push.messageID == "m-1" && push.contentType == "text/plain")

        // The same peer message delivered twice: B's vault drops the copy (replay window) and pushes nothing.
        let original = try #require(await spy.first(on: VaultSubjects.peer(guidB, kind: "message")))
        try await spy.connection.publish(original.payload, to: original.subject)
        // Sent again with a fresh seq under the connection key (what a sender does when an acknowledgement was
        // lost): recognised by its message id, acknowledged, neither stored nor pushed again.
        let resent = try await pair.sealAsAlice(
            PeerTextMessage(messageID: "m-1", content: "hello bob", contentType: "text/plain", sentAt: sent.sentAt), connectionID: id, seqAhead: 10)
        try await spy.connection.publish(resent, to: VaultSubjects.peer(guidB, kind: "message"))
        // A retry by A's app with the same message id: already delivered, not sent again.
        #expect(try await pair.a.sendMessage("hello bob", to: id, messageID: "m-1").delivered)
        #expect(try await pair.a.sendMessage("second", to: id).delivered)
        try await pair.inboxB.wait { $0.count(.newMessage) == 2 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(await pair.inboxB.contents() == ["hello bob", "second"])
        #expect(await spy.count(on: VaultSubjects.notification(guidB, .newMessage)) == 2)
        #expect(await pair.host.dropCounts()[.duplicate] == 1)

        // B reads it: A's app gets the receipt.
        let receipt = try await pair.b.sendReadReceipt(for: "m-1", on: id)
        try await pair.inboxA.wait { $0.count(.readReceipt) == 1 }
        let readPush = try #require(await pair.inboxA.first(.readReceipt)).push(ReadReceiptPush.self)
        #expect(readPush.messageID == "m-1" && readPush.connectionID == id && readPush.readAt == receipt.readAt)
        await #expect(throws: VaultError.vault(code: "not_found", message: "message nope does not exist")) {
            try await pair.b.sendReadReceipt(for: "nope", on: id)
        }

        // A broadcasts her profile (the fields she chooses): B's app gets it.
        _ = try await pair.a.updateProfile(set: ["name": "Alice", "city": "Turin"])
        #expect(try await pair.a.broadcastProfile(fields: ["name"]) == 1)
        try await pair.inboxB.wait { $0.count(.profileUpdate) == 1 }
        let profile = try #require(await pair.inboxB.first(.profileUpdate)).push(ProfileUpdatePush.self)
        #expect(profile.profile == ["name": "Alice"] && profile.connectionID == id)

        // And the other way round.
        #expect(try await pair.b.sendMessage("hi alice", to: id).delivered)
        try await pair.inboxA.wait { $0.count(.newMessage) == 1 }

        // Unknown connections and apps sending the vault-to-vault notice are refused with typed errors.
        await #expect(throws: VaultError.vault(code: "not_found", message: "connection nope does not exist")) {
            try await pair.a.sendMessage("x", to: "nope")
        }
        await #expect(throws: VaultError.self) { try await pair.a.request("connection.notify-revoke", payload: ["connection_id": .string(id)]) }
        await spy.close()
        await pair.shutdown()
    }

    @Test func anInviteIsAcceptedOnceAndExpires() async throws {
        let clock = ShiftedClock()
        let pair = try await VaultPair.make(clock: clock)
        let invite = try await pair.a.createInvite(label: "Bob")
        // Pending invites have no peer yet: not listed.
        #expect(try await pair.a.connections().isEmpty)
        #expect(try await pair.b.acceptInvite(invite.invite).status == .active)
        // Accepting again changes nothing; A cannot accept its own invite; garbage is refused.
        #expect(try await pair.b.acceptInvite(invite.invite).status == .active)
        await #expect(throws: VaultError.self) { try await pair.a.acceptInvite(invite.invite) }
        await #expect(throws: VaultError.self) { try await pair.b.acceptInvite("not-an-invite") }
        // A connection cannot be used before it is accepted: messages to a pending invite fail.
        let unaccepted = try await pair.a.createInvite(ttlSeconds: 60)
        await #expect(throws: VaultError.vault(code: "connection_pending", message: "connection \(unaccepted.connectionID) is not accepted yet")) {
            try await pair.a.sendMessage("too early", to: unaccepted.connectionID)
        }
        // Two minutes later the invite has expired: refused, and its credentials revoked once A's vault sweeps
        // (at its next invite).
        let invited = try NATSCredentials(credsFile: try ConnectionInvite(string: unaccepted.invite).credentials)
        clock.shift(by: 120)
        await #expect(throws: VaultError.vault(code: "invite_expired", message: "the invite expired")) {
            try await pair.b.acceptInvite(unaccepted.invite)
        }
        _ = try await pair.fixture.bus.connector.connect(credentials: invited, name: "invited").close()
        _ = try await pair.a.createInvite()
        await #expect(throws: NATSError.self) { _ = try await pair.fixture.bus.connector.connect(credentials: invited, name: "invited") }
        await pair.shutdown()
    }

    @Test func rotationKeepsTheConnectionWorkingAndRetiresTheOldCredentials() async throws {
        let pair = try await VaultPair.make()
        let id = try await pair.connect()
        let heldByBobBefore = try await pair.heldCredentials(pair.bob, id)
        let rotated = try await pair.a.rotateConnection(id)
        #expect(rotated.connectionID == id && rotated.rotatedAt > 0)
        #expect(try await pair.a.sendMessage("after rotation", to: id).delivered)
        #expect(try await pair.b.sendMessage("answer", to: id).delivered)
        try await pair.inboxB.wait { $0.count(.newMessage) == 1 }
        try await pair.inboxA.wait { $0.count(.newMessage) == 1 }
        // B now publishes with the new credentials A issued; the old ones are revoked on the bus.
        #expect(try await pair.heldCredentials(pair.bob, id).userKey.publicKeyString != heldByBobBefore.userKey.publicKeyString)
        await #expect(throws: NATSError.self) { _ = try await pair.fixture.bus.connector.connect(credentials: heldByBobBefore, name: "old") }
        // The other side rotates too.
        _ = try await pair.b.rotateConnection(id)
        #expect(try await pair.a.sendMessage("after both rotated", to: id).delivered)
        #expect(try await pair.b.connections().first?.rotatedAt != nil)
        await pair.shutdown()
    }

    /// Pushes go out once; `message.list` is how an app that was away reads what its vault stored.
    @Test func theInboxListsStoredMessagesFilteredPagedAndMarkedRead() async throws {
        let pair = try await VaultPair.make()
        let id = try await pair.connect()
        for (index, text) in ["one", "two", "three"].enumerated() {
            #expect(try await pair.a.sendMessage(text, to: id, messageID: "m-\(index + 1)").delivered)
        }
        try await pair.inboxB.wait { $0.count(.newMessage) == 3 }

        let unread = try await pair.b.messages(MessageListRequest(direction: .incoming, unreadOnly: true))
        #expect(unread.messages.map(\.content) == ["one", "two", "three"] && !unread.more)
        #expect(unread.messages.allSatisfy { $0.connectionID == id && $0.direction == .incoming && $0.readAt == nil && $0.contentType == "text/plain" })
        // Pages in stored order.
        let first = try await pair.b.messages(MessageListRequest(limit: 2))
        let rest = try await pair.b.messages(MessageListRequest(offset: 2, limit: 2))
        #expect(first.messages.map(\.messageID) == ["m-1", "m-2"] && first.more)
        #expect(rest.messages.map(\.messageID) == ["m-3"] && !rest.more)

        // Read: no longer unread, still listed with its time; A's sent messages show they were delivered.
        let receipt = try await pair.b.sendReadReceipt(for: "m-2", on: id)
        #expect(try await pair.b.messages(MessageListRequest(unreadOnly: true)).messages.map(\.messageID) == ["m-1", "m-3"])
        let all = try await pair.b.messages(MessageListRequest(connectionID: id))
        #expect(all.messages.first { $0.messageID == "m-2" }?.readAt == receipt.readAt)
        let sent = try await pair.a.messages(MessageListRequest(direction: .outgoing))
        #expect(sent.messages.count == 3 && sent.messages.allSatisfy { $0.direction == .outgoing && $0.deliveredAt != nil })
        #expect(try await pair.a.messages(MessageListRequest(direction: .incoming)).messages.isEmpty)
        #expect(try await pair.b.messages(MessageListRequest(connectionID: "nope")).messages.isEmpty)

        // Bad requests are refused with a typed error; nothing of the other user is ever listed.
        await #expect(throws: VaultError.self) { try await pair.b.request("message.list", payload: ["limit": 501]) }
        await #expect(throws: VaultError.self) { try await pair.b.request("message.list", payload: ["direction": "both"]) }

        // Catching up: what the app already has is not handed over again; a message that arrived while the app was
        // away (its push lost) is, once.
        #expect(try await pair.b.catchUp() == 0)
        await pair.b.close()
        #expect(try await pair.a.sendMessage("while you were away", to: id, messageID: "m-4").delivered)
        let back = try pair.fixture.app(pair.bob)
        try await back.connect()
        let inbox = PushInbox(listeningTo: back)
        #expect(try await back.catchUp() == 3)  // m-1, m-3 and m-4: unread, and new to this connection
        #expect(try await back.catchUp() == 0)
        try await inbox.wait { $0.count(.newMessage) == 3 }
        #expect(await inbox.contents() == ["one", "three", "while you were away"])
        inbox.stop()
        await back.close()
        await pair.shutdown()
    }

    @Test func aPeerVaultThatIsAwayGetsTheMessageWhenItIsSentAgain() async throws {
        let pair = try await VaultPair.make()
        let id = try await pair.connect()
        _ = try await pair.fixture.vaults.stop(userGUID: pair.bob.userGUID, now: Date())
        await pair.host.tick()
        #expect(await pair.host.activeVaults == [pair.alice.userGUID])

        // Nobody acknowledges: not delivered (and stored as sent); a rotation cannot complete and changes nothing.
        let away = try await pair.a.sendMessage("are you there?", to: id, messageID: "m-away")
        #expect(!away.delivered)
        await #expect(throws: VaultError.vault(
            code: "peer_unreachable", message: "the peer has not confirmed the rotation: the current keys stay in use, retry")
        ) { try await pair.a.rotateConnection(id) }

        // Bob's vault is back: the same message id sent again is delivered, once; the rotation completes.
        _ = try await pair.fixture.vaults.start(userGUID: pair.bob.userGUID, now: Date())
        await pair.host.tick()
        _ = try await pair.b.connections()  // the app's next command makes its session the one pushes go to
        let again = try await pair.a.sendMessage("are you there?", to: id, messageID: "m-away")
        #expect(again.delivered && again.sentAt == away.sentAt)
        try await pair.inboxB.wait { $0.count(.newMessage) == 1 }
        #expect(try await pair.a.rotateConnection(id).connectionID == id)
        #expect(try await pair.b.sendMessage("yes", to: id).delivered)
        #expect(await pair.inboxB.contents() == ["are you there?"])
        await pair.shutdown()
    }

    @Test func aRevokeFromEitherSideIsEnforcedByTheInProcessBus() async throws {
        try await Self.revokeScenario(try await VaultPair.make())
    }

    @Test(.enabled(if: natsServerInstalled))
    func aRevokeIsEnforcedByNATSServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vconn-nats-\(UUID().uuidString)")
        let identity = try NATSOperatorIdentity.loadOrCreate(
            in: directory.appendingPathComponent("operator"), name: "tessera-vault-test", random: SystemRandomSource(), clock: SystemClock())
        let server = try OperatorModeServer(identity: identity, directory: directory)
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        try await Self.revokeScenario(try await VaultPair.make(bus: .server(url: server.url), identity: identity), server: server.url)
    }

    /// B revokes: A's app is told, A's sends fail with `connection_revoked`, and the credentials A's vault held
    /// for B's MessageSpace are refused by the bus (as are those B held for A's).
    static func revokeScenario(_ pair: VaultPair, server: String? = nil) async throws {
        let id = try await pair.connect()
        let guidB = try pair.guid(pair.bob)
        let heldByAlice = try await pair.heldCredentials(pair.alice, id)
        let heldByBob = try await pair.heldCredentials(pair.bob, id)
        // A raw connection with the credentials A's vault holds: publishing works before the revoke.
        let raw: any NATSConnection
        if let server {
            var options = try NATSClientOptions(urls: [server], name: "raw", authentication: .credentials(heldByAlice))
            options.maxReconnectAttempts = 1
            options.reconnectWait = .milliseconds(20)
            let client = NATSClient(options: options)
            try await client.connect()
            raw = client
        } else {
            raw = try await pair.fixture.bus.connector.connect(credentials: heldByAlice, name: "raw")
        }
        let subject = VaultSubjects.peer(guidB, kind: "message")
        try await raw.publish(Data("{}".utf8), to: subject)
        try await raw.flush()

        #expect(try await pair.b.revokeConnection(id).revoked)
        try await pair.inboxA.wait { $0.count(.connectionRevoked) == 1 }
        #expect(try #require(await pair.inboxA.first(.connectionRevoked)).push(ConnectionRevokedPush.self).connectionID == id)
        await #expect(throws: VaultError.vault(code: "connection_revoked", message: "connection \(id) is revoked")) {
            try await pair.a.sendMessage("still there?", to: id)
        }
        await #expect(throws: VaultError.vault(code: "connection_revoked", message: "connection \(id) is revoked")) {
            try await pair.b.sendMessage("bye", to: id)
        }
        #expect(try await pair.a.connections().first?.status == .revoked)
        #expect(try await pair.b.connections().first?.status == .revoked)
        // Revoking again is a no-op.
        #expect(try await pair.a.revokeConnection(id).revoked)

        // The bus refuses the old credentials: the open connection's publish (in-process: at `publish`; nats-server:
        // at `flush`, or the connection is closed), and any new connection with them.
        await #expect(throws: (any Error).self) {
            try await raw.publish(Data("{}".utf8), to: subject)
            try await raw.flush(timeout: .seconds(3))
        }
        await raw.close()
        await #expect(throws: NATSError.self) { _ = try await pair.fixture.bus.connector.connect(credentials: heldByAlice, name: "old-a") }
        await #expect(throws: NATSError.self) { _ = try await pair.fixture.bus.connector.connect(credentials: heldByBob, name: "old-b") }
        await pair.shutdown()
    }

    @Test func aDatabaseDumpShowsNeitherMessagesNorCredentials() async throws {
        let pair = try await VaultPair.make()
        let labels = ("label-of-bob-in-alices-vault", "label-of-alice-in-bobs-vault")
        let id = try await pair.connect(labels: labels)
        let secretText = "the eagle lands at dawn"
        #expect(try await pair.a.sendMessage(secretText, to: id).delivered)
        try await pair.inboxB.wait { $0.count(.newMessage) == 1 }
        _ = try await pair.b.sendReadReceipt(for: try #require(await pair.inboxB.first(.newMessage)).push(NewMessagePush.self).messageID, on: id)
        let seeds = [
            try await pair.heldCredentials(pair.alice, id), try await pair.heldCredentials(pair.bob, id),
        ].compactMap { $0.userKey.seedString }
        #expect(seeds.count == 2)

        let dump = try await pair.dump()
        #expect(dump.contains("vt_connections") && dump.contains("vt_messages"))
        #expect(!dump.contains(secretText))
        #expect(!dump.contains(labels.0) && !dump.contains(labels.1))
        for seed in seeds { #expect(!dump.contains(seed)) }
        // No NATS user seed at all (`SU` + 56 base32 characters), and no peer guid (who is connected to whom): the
        // 32-hex form, which only the sealed state holds, appears nowhere.
        #expect(dump.range(of: "SU[A-Z2-7]{56}", options: .regularExpression) == nil)
        let guids = [try pair.guid(pair.alice), try pair.guid(pair.bob)]
        #expect(!guids.contains { dump.contains($0) })
        await pair.shutdown()
    }
}

// MARK: - fixture

/// Two enrolled users (Alice = A, Bob = B) on one host, their apps bootstrapped and listening for pushes.
struct VaultPair {
    let fixture: VaultFixture
    let host: VaultHost
    let alice: VaultFixture.Member
    let bob: VaultFixture.Member
    let a: VaultConnection
    let b: VaultConnection
    let inboxA: PushInbox
    let inboxB: PushInbox

    static func make(
        bus: VaultFixture.Bus = .inProcess, identity: NATSOperatorIdentity? = nil, clock: any TesseraClock = SystemClock()
    ) async throws -> VaultPair {
        let fixture = try await VaultFixture.make(bus: bus, identity: identity)
        let host = VaultHost(database: fixture.database, bus: fixture.bus, hostID: "h1", leaseTime: 3, clock: clock)
        let alice = try await fixture.enroll(), bob = try await fixture.enroll()
        await host.tick()
        let a = try fixture.app(alice), b = try fixture.app(bob)
        try await a.bootstrap(credentials: alice.bootstrap, device: VaultConnection.device)
        try await b.bootstrap(credentials: bob.bootstrap, device: VaultConnection.device)
        return VaultPair(
            fixture: fixture, host: host, alice: alice, bob: bob, a: a, b: b, inboxA: PushInbox(listeningTo: a), inboxB: PushInbox(listeningTo: b))
    }

    /// A invites, B accepts: the connection id, active on both sides.
    func connect(labels: (a: String, b: String) = ("Bob", "Alice")) async throws -> String {
        let invite = try await a.createInvite(label: labels.a)
        let accepted = try await b.acceptInvite(invite.invite, label: labels.b)
        #expect(accepted.status == .active && accepted.connectionID == invite.connectionID)
        #expect(accepted.peerGUID == (try guid(alice)))
        return invite.connectionID
    }

    func guid(_ member: VaultFixture.Member) throws -> String { try VaultSubjects.guid(userGUID: member.userGUID) }

    /// A NATS user of `member`'s account minted by the test (as the operator can), to watch and replay traffic.
    func observer(_ member: VaultFixture.Member, subscribe: [String], publish: [String]) async throws -> BusObserver {
        let account = try fixture.identity.accountKey(userGUID: member.userGUID)
        let key = try NKeyPair(type: .user, random: SystemRandomSource())
        let jwt = try UserClaims(
            user: key.publicKeyString, name: "test-observer", publish: NATSPermission(allow: publish),
            subscribe: NATSPermission(allow: subscribe), expires: Date().addingTimeInterval(600)
        ).encode(signedBy: account, clock: SystemClock())
        let connection = try await fixture.bus.connector.connect(credentials: try NATSCredentials(jwt: jwt, userKey: key), name: "observer")
        return try await BusObserver(connection, subjects: subscribe)
    }

    /// The vault's open state of a connection (white box: opened with the host's keys, as a host does).
    func secrets(_ member: VaultFixture.Member, _ id: String) async throws -> ConnectionSecrets {
        let store = fixture.database.store
        let row = try #require(try await store.vault(member.userGUID))
        let record = try #require(try await VaultConnections(db: fixture.database.sql, keyring: try store.keyring(row)).load(id))
        return record.secrets
    }

    /// The NATS credentials `member`'s vault holds for publishing to its peer.
    func heldCredentials(_ member: VaultFixture.Member, _ id: String) async throws -> NATSCredentials {
        try NATSCredentials(credsFile: try #require(try await secrets(member, id).peerCredentials))
    }

    /// A `message` peer message as Alice's vault would seal it, `seqAhead` past the last seq it used.
    func sealAsAlice(_ body: PeerTextMessage, connectionID id: String, seqAhead: UInt64) async throws -> Data {
        let store = fixture.database.store
        let row = try #require(try await store.vault(alice.userGUID))
        let record = try #require(try await VaultConnections(db: fixture.database.sql, keyring: try store.keyring(row)).load(id))
        let mine = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: try #require(record.secrets.myKey))
        let key = try VaultSessionKey.deriveConnection(privateKey: mine, peerPublicKey: try #require(record.secrets.peerKey), connectionID: id)
        let peer = try #require(record.secrets.peerGUID)
        return try PeerMessage.seal(
            body, key: key, connectionID: id, senderGUID: guid(alice), seq: record.sendSeq + seqAhead,
            subject: VaultSubjects.peer(peer, kind: "message"), random: SystemRandomSource()
        ).encoded()
    }

    /// Every text column of every `vt_` table, one line per value, prefixed with the table name.
    func dump() async throws -> String {
        let sql = try fixture.database.sql.sql
        let tables = try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vt_%'").all()
            .map { try $0.decode(column: "name", as: String.self) }
        var lines: [String] = []
        for table in tables {
            for row in try await sql.raw("SELECT * FROM \(unsafeRaw: table)").all() {
                for column in row.allColumns {
                    if let text = try? row.decode(column: column, as: String.self) { lines.append("\(table)|\(text)") }
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    func shutdown() async {
        inboxA.stop()
        inboxB.stop()
        await a.close()
        await b.close()
        await host.shutdown()
        await fixture.shutdown()
    }
}

/// The pushes an app received.
final class PushInbox: Sendable {
    private let events = Events()
    private let task: Task<Void, Never>

    actor Events {
        var all: [VaultEventMessage] = []
        func append(_ event: VaultEventMessage) { all.append(event) }
    }

    init(listeningTo app: VaultConnection) {
        let events = self.events
        task = Task {
            for await event in app.notifications { await events.append(event) }
        }
    }

    func stop() { task.cancel() }

    func first(_ notification: VaultNotification) async -> VaultEventMessage? {
        await events.all.first { $0.type == notification.rawValue }
    }

    /// The contents of the `new-message` pushes, in order.
    func contents() async -> [String] {
        await events.all.compactMap { try? $0.push(NewMessagePush.self).content }
    }

    /// Waits (5 s at most) until `condition` holds for the pushes received so far.
    func wait(_ condition: @escaping @Sendable (Snapshot) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if condition(Snapshot(events: await events.all)) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let snapshot = Snapshot(events: await events.all)
        #expect(condition(snapshot), "pushes received: \(snapshot.events.map(\.type))")
        guard condition(snapshot) else { throw TestFixtureError("the expected pushes did not arrive") }
    }

    struct Snapshot: Sendable {
        let events: [VaultEventMessage]
        func count(_ notification: VaultNotification) -> Int { events.filter { $0.type == notification.rawValue }.count }
    }
}

/// A raw NATS connection that records what it receives on its subscriptions.
final class BusObserver: Sendable {
    let connection: any NATSConnection
    private let received = Received()
    private let tasks: [Task<Void, Never>]

    actor Received {
        var messages: [NATSMessage] = []
        func append(_ message: NATSMessage) { messages.append(message) }
    }

    init(_ connection: any NATSConnection, subjects: [String]) async throws {
        self.connection = connection
        var tasks: [Task<Void, Never>] = []
        let received = self.received
        for subject in subjects {
            let subscription = try await connection.subscribe(to: subject)
            tasks.append(Task {
                do {
                    for try await message in subscription { await received.append(message) }
                } catch {}
            })
        }
        try await connection.flush()
        self.tasks = tasks
    }

    func first(on subject: String) async -> NATSMessage? { await received.messages.first { $0.subject == subject } }
    func count(on subject: String) async -> Int { await received.messages.filter { $0.subject == subject }.count }

    func close() async {
        for task in tasks { task.cancel() }
        await connection.close()
    }
}

/// Whether a nats-server binary is there (`NATS_SERVER`, or the Debian package's paths), as `OperatorModeServer`
/// looks for it.
let natsServerInstalled = [ProcessInfo.processInfo.environment["NATS_SERVER"], "/usr/sbin/nats-server", "/usr/bin/nats-server"]
    .compactMap { $0 }.contains { FileManager.default.isExecutableFile(atPath: $0) }

/// The system clock moved by a settable offset (the vault host's clock in tests of expiry).
final class ShiftedClock: TesseraClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    func now() -> Date { lock.withLock { Date().addingTimeInterval(offset) } }
    func shift(by seconds: TimeInterval) { lock.withLock { offset += seconds } }
}
