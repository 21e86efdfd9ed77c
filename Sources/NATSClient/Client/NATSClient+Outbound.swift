import NIOCore

/// The outbox: publications are kept from `publish` until a PONG confirms the server processed them, so that a
/// drop loses none of them (they are written again after reconnecting).
extension NATSClient {
    func enqueue(_ bytes: ByteBuffer) async throws {
        let size = bytes.readableBytes
        let limit = options.outboundBufferSize
        guard size <= limit else { throw NATSError.outboundBufferFull(limit: limit) }
        while outboxBytes + size > limit {
            switch state {
            case .closed: throw NATSError.connectionClosed
            case .connected:
                // The server is behind: wait for its next PONG to free space.
                try await withCheckedThrowingContinuation { spaceWaiters.append($0) }
            default:
                throw NATSError.outboundBufferFull(limit: limit)
            }
        }
        guard state != .closed else { throw NATSError.connectionClosed }
        lastSequence += 1
        outbox.append(Outgoing(sequence: lastSequence, bytes: bytes))
        outboxBytes += size
        if state == .connected, let writer {
            writer.write(bytes)
            if pendingPings.isEmpty { sendPing(on: writer, waiter: nil) }
        }
    }

    /// SUB/UNSUB: written now if connected; after a reconnect the subscriptions are sent from their state instead.
    func sendControl(_ write: (inout ByteBuffer) -> Void) {
        guard state == .connected, let writer else { return }
        var buffer = ByteBufferAllocator().buffer(capacity: 128)
        write(&buffer)
        writer.write(buffer)
    }

    /// A PING that, when its PONG arrives, confirms every publication written before it.
    func sendPing(on writer: OutboundWriter, waiter: CheckedContinuation<Void, any Error>?, id: UInt64 = 0) {
        pendingPings.append(PendingPing(id: id, watermark: lastSequence, waiter: waiter))
        var buffer = ByteBufferAllocator().buffer(capacity: 6)
        ClientCommand.writePing(into: &buffer)
        writer.write(buffer)
    }

    func handlePong() {
        guard !pendingPings.isEmpty else { return }
        let ping = pendingPings.removeFirst()
        while outboxStart < outbox.count, outbox[outboxStart].sequence <= ping.watermark {
            outboxBytes -= outbox[outboxStart].bytes.readableBytes
            outboxStart += 1
        }
        if outboxStart > 1024, outboxStart * 2 > outbox.count {
            outbox.removeFirst(outboxStart)
            outboxStart = 0
        }
        let waiters = spaceWaiters
        spaceWaiters = []
        for waiter in waiters { waiter.resume() }
        if let waiter = ping.waiter {
            if let error = ping.errors.first { waiter.resume(throwing: error) } else { waiter.resume() }
        }
        // Publications written after that PING still wait for confirmation.
        if pendingPings.isEmpty, ping.watermark < lastSequence, state == .connected, let writer {
            sendPing(on: writer, waiter: nil)
        }
    }

    /// A server error between a flush's PING and its PONG is that flush's error too.
    func recordErrorForPendingFlushes(_ error: NATSError) {
        for index in pendingPings.indices where pendingPings[index].waiter != nil {
            pendingPings[index].errors.append(error)
        }
    }

    func expireFlush(_ id: UInt64) {
        for index in pendingPings.indices where pendingPings[index].id == id {
            pendingPings[index].waiter?.resume(throwing: NATSError.timeout)
            pendingPings[index].waiter = nil
        }
    }

    /// After a reconnect: the subscriptions, then every unconfirmed publication in order, then a confirming PING.
    func restore(on writer: OutboundWriter) {
        var buffer = ByteBufferAllocator().buffer(capacity: 256)
        for (sid, subscription) in subscriptions.sorted(by: { $0.key < $1.key }) {
            ClientCommand.writeSubscribe(subject: subscription.subject, queue: subscription.queue, sid: sid, into: &buffer)
        }
        if buffer.readableBytes > 0 { writer.write(buffer) }
        for index in outboxStart..<outbox.count { writer.write(outbox[index].bytes) }
        sendPing(on: writer, waiter: nil)
    }

    /// On a drop: flushes fail (their PONG will not come), publishers waiting for space find the buffer full.
    func connectionLost() {
        for ping in pendingPings { ping.waiter?.resume(throwing: NATSError.disconnected) }
        pendingPings = []
        let waiters = spaceWaiters
        spaceWaiters = []
        for waiter in waiters { waiter.resume(throwing: NATSError.outboundBufferFull(limit: options.outboundBufferSize)) }
    }
}
