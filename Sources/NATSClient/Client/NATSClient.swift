import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import TesseraCore

/// A NATS client: one connection at a time to one server of the pool, re-established after a drop with the
/// subscriptions restored and the messages accepted meanwhile delivered.
///
/// Delivery guarantee of `publish`: a message it accepted is kept until a PONG shows the server processed it; if the
/// connection drops first it is sent again after reconnecting. So every accepted message reaches the server at
/// least once, in order; one sent in the last round trip before a drop may arrive twice.
public actor NATSClient {
    public let options: NATSClientOptions
    /// INFO of the current server.
    public internal(set) var serverInfo: ServerInfo?
    /// The server of the current connection (nil while disconnected).
    public internal(set) var connectedServer: ServerAddress?

    enum State { case idle, connecting, connected, disconnected, closed }
    var state: State = .idle
    var pool: [ServerAddress]
    var writer: OutboundWriter?
    var connectionTask: Task<Void, Never>?
    var keepAliveTask: Task<Void, Never>?
    var connectWaiter: CheckedContinuation<Void, any Error>?

    // Outbound: every publication until its PONG arrives (see the type's documentation).
    struct Outgoing {
        var sequence: UInt64
        var bytes: ByteBuffer
    }
    var outbox: [Outgoing] = []
    var outboxStart = 0
    var outboxBytes = 0
    var lastSequence: UInt64 = 0
    var spaceWaiters: [CheckedContinuation<Void, any Error>] = []

    struct PendingPing {
        /// Non-zero for a flush, so that its timeout finds it.
        var id: UInt64
        var watermark: UInt64
        var waiter: CheckedContinuation<Void, any Error>?
        var errors: [NATSError] = []
    }
    var pendingPings: [PendingPing] = []
    var nextFlushID: UInt64 = 0

    struct SubscriptionState {
        var subject: String
        var queue: String?
        var continuation: AsyncThrowingStream<NATSMessage, any Error>.Continuation?
    }
    var subscriptions: [UInt64: SubscriptionState] = [:]
    var nextSID: UInt64 = 0

    // Request-reply over one wildcard inbox subscription.
    var inboxPrefix: String
    var inboxSID: UInt64?
    var nextToken: UInt64 = 0
    struct PendingRequest {
        var subject: String
        var continuation: CheckedContinuation<NATSMessage, any Error>?
        var result: Result<NATSMessage, NATSError>?
        var timeout: Task<Void, Never>?
    }
    var requests: [String: PendingRequest] = [:]

    var eventContinuations: [UInt64: AsyncStream<NATSEvent>.Continuation] = [:]
    var nextEventID: UInt64 = 0

    let group: any EventLoopGroup

    public init(options: NATSClientOptions, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.options = options
        self.pool = options.servers
        self.group = eventLoopGroup
        self.inboxPrefix = "_INBOX." + Base32.encode(options.random.bytes(15))
    }

    /// Connects to the first server of the pool that accepts us (each tried once) and starts the connection's life:
    /// keep-alive, and reconnecting after a drop. Throws the last server's error if none accepts.
    public func connect() async throws {
        guard state != .closed else { throw NATSError.connectionClosed }
        guard state == .idle else { return }
        guard !pool.isEmpty else { throw NATSError.noServersAvailable }
        state = .connecting
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            connectWaiter = continuation
            connectionTask = Task { await self.runConnections() }
        }
    }

    /// A stream of connection events; each call returns a new stream that sees every later event.
    public func events() -> AsyncStream<NATSEvent> {
        let (stream, continuation) = AsyncStream<NATSEvent>.makeStream()
        nextEventID += 1
        let id = nextEventID
        if state == .closed {
            continuation.yield(.closed)
            continuation.finish()
            return stream
        }
        eventContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeEventStream(id) } }
        return stream
    }

    func removeEventStream(_ id: UInt64) { eventContinuations[id] = nil }

    func emit(_ event: NATSEvent) {
        for continuation in eventContinuations.values { continuation.yield(event) }
    }

    /// Publishes `payload` on `subject`. Returns once the message is accepted (written, or buffered while
    /// disconnected); `flush()` waits until the server has processed it.
    public func publish(
        _ payload: some DataProtocol, to subject: String, replyTo: String? = nil, headers: NATSHeaders? = nil
    ) async throws {
        try ClientCommand.validate(subject: subject, allowWildcards: false)
        if let replyTo { try ClientCommand.validate(subject: replyTo, allowWildcards: false) }
        let headerBytes = try headers.map { h throws(NATSError) in try h.encoded() }
        let size = (headerBytes?.count ?? 0) + payload.count
        if let limit = serverInfo?.maxPayload, limit > 0, size > limit {
            throw NATSError.payloadTooLarge(size: size, limit: limit)
        }
        var buffer = ByteBufferAllocator().buffer(capacity: size + subject.utf8.count + 64)
        ClientCommand.writePublish(
            subject: subject, replyTo: replyTo, headers: headerBytes, payload: Array(payload), into: &buffer)
        try await enqueue(buffer)
    }

    /// Subscribes to `subject` (wildcards allowed), optionally in a queue group: each message goes to one member.
    public func subscribe(to subject: String, queue: String? = nil) throws -> Subscription {
        guard state != .closed else { throw NATSError.connectionClosed }
        try ClientCommand.validate(subject: subject)
        if let queue { try ClientCommand.validate(queue: queue) }
        nextSID += 1
        let sid = nextSID
        let (stream, continuation) = AsyncThrowingStream<NATSMessage, any Error>.makeStream()
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { Task { await self?.unsubscribe(sid: sid) } }
        }
        subscriptions[sid] = SubscriptionState(subject: subject, queue: queue, continuation: continuation)
        sendControl { ClientCommand.writeSubscribe(subject: subject, queue: queue, sid: sid, into: &$0) }
        // Captured strongly: a subscription in use keeps its client alive.
        return Subscription(subject: subject, queue: queue, stream: stream) { await self.unsubscribe(sid: sid) }
    }

    func unsubscribe(sid: UInt64) {
        guard let subscription = subscriptions.removeValue(forKey: sid) else { return }
        subscription.continuation?.finish()
        sendControl { ClientCommand.writeUnsubscribe(sid: sid, into: &$0) }
    }

    /// Waits until the server has processed everything sent before (PING → PONG). Throws a permissions violation
    /// the server reported in between, `timeout`, or `disconnected` if the connection dropped first.
    public func flush(timeout: Duration = .seconds(10)) async throws {
        guard state != .closed else { throw NATSError.connectionClosed }
        guard state == .connected, let writer else { throw NATSError.disconnected }
        nextFlushID += 1
        let id = nextFlushID
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { await self?.expireFlush(id) }
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            sendPing(on: writer, waiter: continuation, id: id)
        }
    }

    /// Unsubscribes everything, lets the server deliver what it already routed, waits for the outbound messages to
    /// be processed, ends every subscription (its buffered messages can still be read) and closes.
    public func drain(timeout: Duration = .seconds(10)) async throws {
        guard state != .closed else { return }
        for sid in subscriptions.keys.sorted() where sid != inboxSID {
            sendControl { ClientCommand.writeUnsubscribe(sid: sid, into: &$0) }
        }
        var failure: (any Error)?
        do { try await flush(timeout: timeout) } catch { failure = error }
        for (sid, subscription) in subscriptions where sid != inboxSID { subscription.continuation?.finish() }
        await close()
        if let failure { throw failure }
    }

    /// Closes the connection now: pending flushes, requests and waiting publishers fail with `connectionClosed`,
    /// subscriptions end.
    public func close() async {
        guard state != .closed else { return }
        state = .closed
        connectionTask?.cancel()
        keepAliveTask?.cancel()
        writer?.close()
        writer = nil
        connectedServer = nil
        failAll(with: .connectionClosed)
        for subscription in subscriptions.values { subscription.continuation?.finish() }
        subscriptions = [:]
        emit(.closed)
        for continuation in eventContinuations.values { continuation.finish() }
        eventContinuations = [:]
    }

    func failAll(with error: NATSError) {
        connectWaiter?.resume(throwing: error)
        connectWaiter = nil
        for ping in pendingPings { ping.waiter?.resume(throwing: error) }
        pendingPings = []
        for waiter in spaceWaiters { waiter.resume(throwing: error) }
        spaceWaiters = []
        for (token, _) in requests { finishRequest(token, .failure(error)) }
    }
}
