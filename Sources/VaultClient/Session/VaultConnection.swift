import Crypto
import Foundation
import NATSClient
import TesseraCore
import TesseraJOSE
import VaultProtocol

/// The app's end-to-end encrypted session with its vault over NATS: bootstrap (with the ledger's bootstrap
/// credentials, the reply checked against the vault's identity key), commands with typed answers, pushes as an
/// `AsyncSequence`, session rotation (after 1000 messages or 24 h) and credential refresh. The NATS client
/// reconnects by itself; a command without an answer is retried with the same event id, which the vault handles
/// once.
public actor VaultConnection {
    /// Who this device is, as the bootstrap request says.
    public struct Device: Sendable {
        /// The device's id, as enrolled.
        public var deviceID: String
        /// The kind of device, as enrolled (the CLI says `cli`).
        public var deviceType: String
        /// The app's version, for the vault's records.
        public var appVersion: String
        /// The lifetime asked for the full NATS credentials; the vault clamps it to its policy's maximum.
        public var requestedTTLHours: Int

        /// A device description; credentials for 24 hours by default.
        public init(deviceID: String, deviceType: String, appVersion: String, requestedTTLHours: Int = 24) {
            self.deviceID = deviceID
            self.deviceType = deviceType
            self.appVersion = appVersion
            self.requestedTTLHours = requestedTTLHours
        }
    }

    /// The user whose vault this connects to.
    public let userGUID: String
    let guid: String
    let identityPublicKey: Data
    let connector: any NATSConnector
    let keyStore: any VaultSessionKeyStore
    let clock: any TesseraClock
    let random: any RandomSource
    /// How long one attempt waits for the vault's answer, and how many times a command is sent.
    public var requestTimeout: Duration = .seconds(5)
    /// How many times an unanswered command is sent (with the same event id, so the vault runs it once).
    public var attempts = 3

    var state: VaultSessionState?
    var sessionKey: SymmetricKey?
    /// Sessions replaced by a rotation, still accepted until the date (answers already on their way).
    var retiredSessions: [String: (key: SymmetricKey, until: Date)] = [:]
    var windows: [String: ReplayWindow] = [:]
    /// While a `session.rotate` is on its way, what arrives under a session not known yet is held, not dropped: the
    /// vault pushes under the new session as soon as it made it, which can be before its answer reaches the app (or
    /// before the app has adopted the new key). Opened when the rotation ends (dropped if it failed).
    var rotationsInFlight = 0
    var heldDuringRotation: [NATSMessage] = []
    static let maxHeldDuringRotation = 256
    var connection: (any NATSConnection)?
    private var loop: Task<Void, Never>?
    var pending: [String: PendingReply] = [:]
    /// The last sequence number sent under the current session (a restart starts above the saved reservation).
    var lastSeq: UInt64 = 0
    /// Blocks skipped by retries since the last answer (`skipReservedBlock`).
    var skipsWithoutAnswer = 0
    private let notificationStream: AsyncStream<VaultEventMessage>
    private let notificationContinuation: AsyncStream<VaultEventMessage>.Continuation
    /// Recently delivered push ids: a message the vault sends again (after a reconnect) reaches the app once.
    private var seenPushes = RecentIDs(capacity: 4096)
    /// Envelopes this app dropped (malformed, unknown session, replayed, failing authentication), by reason: drops are
    /// never answered, so this is how they are seen.
    public private(set) var drops = VaultDropCounters()

    /// A connection to the vault of `userGUID`, whose signed bootstrap reply must verify with `identityPublicKey` (the
    /// Ed25519 key from enrollment, ``VaultClient/Enrolled/vaultIdentityPublicKey``). Nothing is sent until
    /// ``bootstrap(credentials:device:timeout:)`` or ``connect()``.
    public init(
        userGUID: String, identityPublicKey: Data, connector: any NATSConnector, keyStore: any VaultSessionKeyStore,
        clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()
    ) throws(VaultError) {
        guard let guid = try? VaultSubjects.guid(userGUID: userGUID) else { throw .invalidResponse("user_guid is not a UUID") }
        guard identityPublicKey.count == 32 else { throw .crypto("the vault identity key is not an Ed25519 public key") }
        self.userGUID = userGUID
        self.guid = guid
        self.identityPublicKey = identityPublicKey
        self.connector = connector
        self.keyStore = keyStore
        self.clock = clock
        self.random = random
        (notificationStream, notificationContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    /// The vault's pushes (new messages, read receipts, profile updates, revoked connections, credential rotation),
    /// each once.
    public nonisolated var notifications: AsyncStream<VaultEventMessage> { notificationStream }

    /// Sets ``requestTimeout`` (from outside the actor).
    public func setRequestTimeout(_ timeout: Duration) { requestTimeout = timeout }

    func newID() -> String { Base64URL.encode(random.bytes(16)) }
    var now: Date { clock.now() }

    // MARK: connection

    /// Connects with the saved session (after `bootstrap`, or in a later run of the app).
    public func connect() async throws(VaultError) {
        guard connection == nil else { return }
        guard let saved = try keyStore.loadSession(), saved.userGUID == userGUID else { throw .noSession }
        guard let keyBytes = Base64URL.bytes(saved.sessionKey), keyBytes.count == 32 else { throw .storage("the saved session key is damaged") }
        state = saved
        sessionKey = SymmetricKey(data: keyBytes)
        lastSeq = saved.sendReserved
        skipsWithoutAnswer = 0
        let credentials: NATSCredentials
        do {
            credentials = try NATSCredentials(credsFile: saved.credentials)
        } catch {
            throw .storage("the saved NATS credentials are damaged")
        }
        let connection: any NATSConnection
        do {
            connection = try await connector.connect(credentials: credentials, name: "app-" + guid)
            let subscription = try await connection.subscribe(to: VaultSubjects.allForApp(guid), queue: nil)
            try await connection.flush(timeout: .seconds(5))
            loop = Task { [weak self] in
                do {
                    for try await message in subscription { await self?.receive(message) }
                } catch {}
            }
        } catch {
            throw .bus(String(describing: error))
        }
        self.connection = connection
    }

    /// Closes the NATS connection; commands still waiting fail with ``VaultError/bus(_:)``. The saved session stays.
    public func close() async {
        loop?.cancel()
        loop = nil
        await connection?.close()
        connection = nil
        for case .awaiting(let continuation) in pending.values { continuation.resume(throwing: VaultError.bus("connection closed")) }
        pending.removeAll()
    }

    // MARK: receiving

    func receive(_ message: NATSMessage) {
        guard message.payload.count <= VaultEnvelope.maxBytes, let envelope = try? VaultEnvelope(json: message.payload) else {
            return drops.record(.malformed)
        }
        let key: SymmetricKey
        if envelope.sessionID == state?.sessionID, let current = sessionKey {
            key = current
        } else if let retired = retiredSessions[envelope.sessionID], now < retired.until {
            key = retired.key
        } else if rotationsInFlight > 0, heldDuringRotation.count < Self.maxHeldDuringRotation {
            return heldDuringRotation.append(message)
        } else {
            return drops.record(.unknownSession)
        }
        var window = windows[envelope.sessionID] ?? ReplayWindow()
        if let reason = window.check(envelope.seq) { return drops.record(reason) }
        guard let plaintext = try? envelope.open(key: key, direction: .vaultToApp, subject: message.subject) else {
            return drops.record(.badTag)
        }
        window.accept(envelope.seq)
        windows[envelope.sessionID] = window
        switch try? VaultPlaintext(json: plaintext) {
        case .response(let response):
            answered(response)
        case .message(let push):
            guard deliver(push) else { return }
            // New NATS credentials from the vault: saved now, used from the next connection on.
            if let rotation = try? push.push(CredentialsRotatePush.self) {
                try? adoptCredentials(rotation.credentials, credentialID: rotation.credentialID, expiresAt: rotation.expiresAt)
            }
        case nil:
            drops.record(.malformed)
        }
    }

    /// Hands a push to `notifications` unless it was delivered already; false for a repeat.
    func deliver(_ push: VaultEventMessage) -> Bool {
        guard seenPushes.insert(Self.pushIdentity(push)) else { return false }
        notificationContinuation.yield(push)
        return true
    }

    /// A push is the same push when it carries the same message id on the same connection (a message delivered
    /// again, or caught up by `catchUp`), else its own id.
    static func pushIdentity(_ push: VaultEventMessage) -> String {
        if case .string(let id)? = push.payload["message_id"] {
            let connection = push.payload["connection_id"]?.stringValue ?? ""
            return push.type + "|" + connection + "|" + id
        }
        return push.id
    }
}

/// The last `capacity` ids seen, oldest forgotten first.
struct RecentIDs: Sendable {
    let capacity: Int
    private var order: [String] = []
    private var members: Set<String> = []
    private var head = 0

    init(capacity: Int) { self.capacity = capacity }

    /// True when `id` was not among the recent ones (and is now).
    mutating func insert(_ id: String) -> Bool {
        guard !members.contains(id) else { return false }
        members.insert(id)
        if order.count < capacity {
            order.append(id)
        } else {
            members.remove(order[head])
            order[head] = id
            head = (head + 1) % capacity
        }
        return true
    }
}

/// A request's slot: published, answered before anyone waited, or waited for.
enum PendingReply {
    case sent
    case answered(VaultEventResponse)
    case awaiting(CheckedContinuation<VaultEventResponse?, any Error>)
}
