import NIOConcurrencyHelpers
import NIOCore

/// Coalesces writes from the client into one flush per event-loop turn: bytes are appended under a lock, and the
/// first append after a flush schedules the next one. Order is the order of `write` calls.
final class OutboundWriter: Sendable {
    private let channel: any Channel
    private let pending: NIOLockedValueBox<ByteBuffer?> = NIOLockedValueBox(nil)

    init(channel: any Channel) { self.channel = channel }

    func write(_ bytes: ByteBuffer) {
        let mustSchedule = pending.withLockedValue { buffer -> Bool in
            if buffer == nil {
                buffer = bytes
                return true
            }
            var copy = bytes
            buffer?.writeBuffer(&copy)
            return false
        }
        guard mustSchedule else { return }
        let channel = self.channel
        let pending = self.pending
        channel.eventLoop.execute {
            if let buffer = pending.withLockedValue({ b -> ByteBuffer? in defer { b = nil }; return b }) {
                channel.writeAndFlush(buffer, promise: nil)
            }
        }
    }

    func close() { channel.close(promise: nil) }
}
