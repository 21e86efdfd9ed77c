import Foundation
import Synchronization

/// One connected Unix domain socket: a dedicated thread reads frames and hands them over in order; sends are
/// serialised. The thread owns the descriptor and closes it; a local `close()` only shuts the socket down, so a
/// descriptor number is never used after it was released.
final class LoopbackSocketConnection: Sendable {
    private let fd: Int32
    /// True while the descriptor is open; held during a send.
    private let open = Mutex(true)
    private let closedLocally = Atomic<Bool>(false)

    init(fd: Int32) {
        self.fd = fd
    }

    /// Starts the reading thread. `onFrame` gets every frame in order; `onClose` runs once when the peer closes,
    /// the stream breaks or a frame is malformed, but not after a local `close()`.
    func start(onFrame: @escaping @Sendable (LoopbackFrame) -> Void, onClose: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            readLoop(onFrame: onFrame)
            UnixSocket.shutdownBoth(fd)
            open.withLock { isOpen in
                isOpen = false
                UnixSocket.closeDescriptor(fd)
            }
            if !closedLocally.load(ordering: .acquiring) { onClose() }
        }
        thread.name = "tessera-ble-loopback"
        thread.start()
    }

    private func readLoop(onFrame: @Sendable (LoopbackFrame) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var frames = LoopbackFrameBuffer()
        while true {
            guard let count = UnixSocket.receive(fd, into: &buffer), count > 0 else { return }
            frames.append(buffer[0..<count])
            do {
                while let frame = try frames.next() {
                    if closedLocally.load(ordering: .acquiring) { return }
                    onFrame(frame)
                }
            } catch {
                // A peer that breaks the framing is cut off.
                return
            }
        }
    }

    func send(_ frame: LoopbackFrame) throws(TransportError) {
        let bytes = frame.encoded()
        let sent = open.withLock { isOpen -> Bool in
            guard isOpen, !closedLocally.load(ordering: .acquiring) else { return false }
            do {
                try UnixSocket.sendAll(fd, bytes)
                return true
            } catch {
                return false
            }
        }
        guard sent else { throw .disconnected }
    }

    /// Ends the connection; the peer sees end of stream. No `onClose` follows. Idempotent.
    func close() {
        guard !closedLocally.exchange(true, ordering: .acquiringAndReleasing) else { return }
        open.withLock { isOpen in
            if isOpen { UnixSocket.shutdownBoth(fd) }
        }
    }
}
