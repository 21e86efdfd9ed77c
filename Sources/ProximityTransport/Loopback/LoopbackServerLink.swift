import Foundation
import Synchronization

/// The peripheral's end of a loopback service: a listening socket at `path` (its existence is the advertisement),
/// one central at a time, GATT operations answered from the service definition.
final class LoopbackServerLink: GATTServerLink {
    let serviceUUID: UUID
    let path: String
    private let definition: GATTServiceDefinition
    private let maximumMTU: Int
    private let events: @Sendable (GATTServerEvent) -> Void
    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let state = Mutex(State())

    private struct State: Sendable {
        var advertising = true
        var closed = false
        var central: LoopbackSocketConnection?
        /// The central sent hello and got its welcome.
        var handshaken = false
        var subscribed: Set<UUID> = []
    }

    /// Binds and listens at `path` and starts accepting.
    init(
        path: String, definition: GATTServiceDefinition, maximumMTU: Int,
        events: @escaping @Sendable (GATTServerEvent) -> Void
    ) throws(UnixSocket.Failure) {
        self.serviceUUID = definition.uuid
        self.path = path
        self.definition = definition
        self.maximumMTU = maximumMTU
        self.events = events
        self.listener = try UnixSocket.listen(path: path)
        do {
            self.wake = try UnixSocket.makePipe()
        } catch {
            UnixSocket.closeDescriptor(listener)
            UnixSocket.unlinkPath(path)
            throw error
        }
        let listener = self.listener
        let wake = self.wake
        let thread = Thread { [weak self] in
            while UnixSocket.waitReadable(listener, wake: wake.read) {
                guard let fd = UnixSocket.accept(listener) else { continue }
                guard let self else {
                    UnixSocket.closeDescriptor(fd)
                    break
                }
                self.accepted(fd)
            }
            UnixSocket.closeDescriptor(listener)
            UnixSocket.closeDescriptor(wake.read)
            UnixSocket.closeDescriptor(wake.write)
        }
        thread.name = "tessera-ble-loopback-accept"
        thread.start()
    }

    deinit {
        close()
    }

    var isAdvertising: Bool { state.withLock { $0.advertising } }

    private func accepted(_ fd: Int32) {
        let connection = LoopbackSocketConnection(fd: fd)
        let taken = state.withLock { state -> Bool in
            if state.closed || state.central != nil { return false }
            state.central = connection
            state.handshaken = false
            state.subscribed = []
            return true
        }
        // One central at a time: another one is turned away (it sees the socket close before a welcome).
        guard taken else {
            UnixSocket.closeDescriptor(fd)
            return
        }
        connection.start(
            onFrame: { [weak self, weak connection] frame in
                guard let self, let connection else { return }
                self.received(frame, from: connection)
            },
            onClose: { [weak self, weak connection] in
                guard let self, let connection else { return }
                self.lost(connection)
            })
    }

    private func received(_ frame: LoopbackFrame, from connection: LoopbackSocketConnection) {
        let current = state.withLock { $0.central === connection ? $0.handshaken : nil }
        guard let handshaken = current else { return }
        switch frame {
        case .hello(let requested) where !handshaken:
            let mtu = max(ATT.minimumMTU, min(Int(requested), maximumMTU))
            let characteristics = definition.characteristics.map {
                LoopbackCharacteristic(uuid: $0.uuid, properties: $0.properties.rawValue)
            }
            do throws(TransportError) {
                try connection.send(.welcome(attMTU: UInt16(mtu), service: serviceUUID, characteristics: characteristics))
            } catch {
                drop(connection)
                return
            }
            state.withLock { $0.handshaken = true }
            events(.connected(attMTU: mtu))
        case _ where !handshaken:
            drop(connection)
        case .readRequest(let uuid):
            let response: LoopbackFrame
            if let characteristic = definition.characteristic(uuid) {
                response = characteristic.properties.contains(.read)
                    ? .readResponse(uuid, status: LoopbackStatus.ok.rawValue, value: characteristic.value ?? Data())
                    : .readResponse(uuid, status: LoopbackStatus.notPermitted.rawValue, value: Data())
            } else {
                response = .readResponse(uuid, status: LoopbackStatus.notFound.rawValue, value: Data())
            }
            try? connection.send(response)
        case .subscribeRequest(let uuid):
            guard let characteristic = definition.characteristic(uuid) else {
                try? connection.send(.subscribeResponse(uuid, status: LoopbackStatus.notFound.rawValue))
                return
            }
            guard characteristic.properties.contains(.notify) else {
                try? connection.send(.subscribeResponse(uuid, status: LoopbackStatus.notPermitted.rawValue))
                return
            }
            state.withLock { _ = $0.subscribed.insert(uuid) }
            events(.subscribed(uuid))
            try? connection.send(.subscribeResponse(uuid, status: LoopbackStatus.ok.rawValue))
        case .writeCommand(let uuid, let value):
            // A Write Command to something that takes none is dropped, as ATT does (no response exists).
            guard definition.characteristic(uuid)?.properties.contains(.writeWithoutResponse) == true else { return }
            events(.written(uuid, value))
        case .hello, .welcome, .readResponse, .subscribeResponse, .notification:
            drop(connection)
        }
    }

    /// Cuts off a central that broke the framing; the engine hears a disconnect.
    private func drop(_ connection: LoopbackSocketConnection) {
        connection.close()
        lost(connection)
    }

    private func lost(_ connection: LoopbackSocketConnection) {
        let wasHandshaken = state.withLock { state -> Bool? in
            guard state.central === connection else { return nil }
            state.central = nil
            state.subscribed = []
            defer { state.handshaken = false }
            return state.handshaken
        }
        if wasHandshaken == true { events(.disconnected) }
    }

    func notify(_ value: Data, characteristic: UUID) async throws(TransportError) {
        guard definition.characteristic(characteristic)?.properties.contains(.notify) == true else {
            throw .protocolViolation("characteristic \(characteristic.uuidString) does not notify")
        }
        let target = state.withLock { state -> (LoopbackSocketConnection, Bool)? in
            guard let central = state.central, state.handshaken else { return nil }
            return (central, state.subscribed.contains(characteristic))
        }
        guard let (central, subscribed) = target else { throw .disconnected }
        // Not subscribed: nothing goes on air, as with a real notification.
        guard subscribed else { return }
        try central.send(.notification(characteristic, value))
    }

    func stopAdvertising() {
        let stop = state.withLock { state -> Bool in
            guard state.advertising else { return false }
            state.advertising = false
            return true
        }
        guard stop else { return }
        UnixSocket.unlinkPath(path)
        UnixSocket.wake(wake.write)
    }

    func close() {
        stopAdvertising()
        let central = state.withLock { state -> LoopbackSocketConnection? in
            state.closed = true
            defer { state.central = nil }
            return state.central
        }
        central?.close()
    }
}
