import Foundation
import Synchronization

/// The central's end of a loopback connection. Requests (hello, read, subscribe) are answered in order, so each
/// waits for the next response frame.
final class LoopbackClientLink: GATTClientLink {
    let attMTU: Int
    let characteristics: Set<UUID>
    private let connection: LoopbackSocketConnection
    private let session: Session

    /// What the reading thread and the callers share.
    final class Session: Sendable {
        let events: @Sendable (GATTClientEvent) -> Void
        let state = Mutex(State())

        struct State: Sendable {
            var responses = Waiters<LoopbackFrame>()
            var closed = false
            var handshaken = false
        }

        init(events: @escaping @Sendable (GATTClientEvent) -> Void) { self.events = events }

        func received(_ frame: LoopbackFrame) {
            switch frame {
            case .notification(let uuid, let value):
                if state.withLock({ $0.handshaken }) { events(.notified(uuid, value)) }
            case .welcome, .readResponse, .subscribeResponse:
                state.withLock { _ = $0.responses.resumeFirst(with: .success(frame)) }
            case .hello, .readRequest, .subscribeRequest, .writeCommand:
                break
            }
        }

        func lost() {
            let notify = state.withLock { state -> Bool in
                state.responses.resumeAll(with: .failure(.disconnected))
                defer { state.closed = true }
                return !state.closed && state.handshaken
            }
            if notify { events(.disconnected) }
        }

        /// Sends a request and waits for its response.
        func request(
            _ frame: LoopbackFrame, on connection: LoopbackSocketConnection, timeout: Duration? = nil
        ) async throws(TransportError) -> LoopbackFrame {
            let id = try state.withLock { state throws(TransportError) in
                if state.closed { throw TransportError.disconnected }
                return state.responses.reserve()
            }
            do throws(TransportError) {
                try connection.send(frame)
            } catch {
                state.withLock { $0.responses.abandon(id, with: error) }
            }
            let result = await suspend(
                id: id, timeout: timeout,
                park: { id, continuation in state.withLock { $0.responses.park(id, continuation) } },
                abandon: { [weak self] id, error in self?.state.withLock { $0.responses.abandon(id, with: error) } })
            return try result.get()
        }
    }

    private init(attMTU: Int, characteristics: Set<UUID>, connection: LoopbackSocketConnection, session: Session) {
        self.attMTU = attMTU
        self.characteristics = characteristics
        self.connection = connection
        self.session = session
    }

    deinit { disconnect() }

    /// Connects to the socket at `path` and exchanges hello / welcome. Nil when the server turned the connection
    /// away (busy, or gone in between): the caller scans on.
    static func open(
        path: String, service: UUID, requestedMTU: Int, events: @escaping @Sendable (GATTClientEvent) -> Void
    ) async throws(TransportError) -> LoopbackClientLink? {
        let fd: Int32
        do {
            fd = try UnixSocket.connect(path: path)
        } catch {
            return nil
        }
        let connection = LoopbackSocketConnection(fd: fd)
        let session = Session(events: events)
        connection.start(onFrame: { session.received($0) }, onClose: { session.lost() })
        let welcome: LoopbackFrame
        do throws(TransportError) {
            welcome = try await session.request(
                .hello(attMTU: UInt16(clamping: requestedMTU)), on: connection, timeout: .seconds(5))
        } catch {
            connection.close()
            if error == .closed { throw error }
            return nil
        }
        guard case .welcome(let mtu, let uuid, let characteristics) = welcome, uuid == service,
            Int(mtu) >= ATT.minimumMTU
        else {
            connection.close()
            throw .protocolViolation("loopback peer answered hello with a malformed welcome")
        }
        session.state.withLock { $0.handshaken = true }
        return LoopbackClientLink(
            attMTU: Int(mtu), characteristics: Set(characteristics.map(\.uuid)), connection: connection,
            session: session)
    }

    func read(_ characteristic: UUID) async throws(TransportError) -> Data {
        let response = try await session.request(.readRequest(characteristic), on: connection)
        guard case .readResponse(let uuid, let status, let value) = response, uuid == characteristic else {
            throw .protocolViolation("read of \(characteristic.uuidString) answered out of order")
        }
        switch LoopbackStatus(rawValue: status) {
        case .ok: return value
        case .notFound: throw .characteristicNotFound(characteristic)
        case .notPermitted, nil: throw .protocolViolation("characteristic \(characteristic.uuidString) is not readable")
        }
    }

    func subscribe(_ characteristic: UUID) async throws(TransportError) {
        let response = try await session.request(.subscribeRequest(characteristic), on: connection)
        guard case .subscribeResponse(let uuid, let status) = response, uuid == characteristic else {
            throw .protocolViolation("subscription to \(characteristic.uuidString) answered out of order")
        }
        switch LoopbackStatus(rawValue: status) {
        case .ok: return
        case .notFound: throw .characteristicNotFound(characteristic)
        case .notPermitted, nil: throw .protocolViolation("characteristic \(characteristic.uuidString) does not notify")
        }
    }

    func writeWithoutResponse(_ value: Data, characteristic: UUID) async throws(TransportError) {
        try connection.send(.writeCommand(characteristic, value))
    }

    func disconnect() {
        session.state.withLock { state in
            state.closed = true
            state.responses.resumeAll(with: .failure(.disconnected))
        }
        connection.close()
    }
}
