/// Messages of one subscription, in the order the server delivered them. Iterate it with `for try await`; the
/// sequence ends when the subscription is unsubscribed, drained or the client closes, and throws
/// `permissionViolation` when the server refuses the subscription.
///
/// Messages are buffered without bound until read: read them or `unsubscribe()`.
public struct Subscription: AsyncSequence, Sendable {
    public typealias Element = NATSMessage
    public typealias AsyncIterator = AsyncThrowingStream<NATSMessage, any Error>.AsyncIterator

    public let subject: String
    public let queue: String?
    let sid: UInt64
    let stream: AsyncThrowingStream<NATSMessage, any Error>
    let client: NATSClient

    public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }

    /// Stops delivery (UNSUB); messages already buffered can still be read.
    public func unsubscribe() async {
        await client.unsubscribe(sid: sid)
    }
}
