/// Messages of one subscription, in the order the server delivered them. Iterate it with `for try await`; the
/// sequence ends when the subscription is unsubscribed, drained or the connection closes, and throws
/// `permissionViolation` when the server refuses the subscription.
///
/// Messages are buffered without bound until read: read them or `unsubscribe()`.
public struct Subscription: AsyncSequence, Sendable {
    public typealias Element = NATSMessage
    public typealias AsyncIterator = AsyncThrowingStream<NATSMessage, any Error>.AsyncIterator

    public let subject: String
    public let queue: String?
    let stream: AsyncThrowingStream<NATSMessage, any Error>
    /// Stops delivery on the connection that made the subscription (`NATSClient`: UNSUB).
    let stop: @Sendable () async -> Void

    /// A subscription whose messages come from `stream`, for a `NATSConnection` implementation: `unsubscribe` must
    /// stop delivery and finish the stream.
    public init(
        subject: String, queue: String? = nil, stream: AsyncThrowingStream<NATSMessage, any Error>,
        unsubscribe: @escaping @Sendable () async -> Void
    ) {
        self.subject = subject
        self.queue = queue
        self.stream = stream
        self.stop = unsubscribe
    }

    public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }

    /// Stops delivery (UNSUB); messages already buffered can still be read.
    public func unsubscribe() async {
        await stop()
    }
}
