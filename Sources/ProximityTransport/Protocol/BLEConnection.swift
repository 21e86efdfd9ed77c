import Foundation
import TesseraCore
import Synchronization

/// The ISO/IEC 18013-5 BLE protocol engine of one connection (§8.3.3.1.1.4–8), the same for every radio: the
/// State characteristic handshake (start 0x01, end 0x02), chunking onto Client2Server / Server2Client, reassembly
/// with its limits, and the Ident check. It drives a `GATTServerLink` or a `GATTClientLink`, depending on the GATT
/// role the local device plays in the endpoint's mode.
final class BLEConnection: Sendable {
    let role: BLERole
    let endpoint: BLEEndpoint
    let gattRole: GATTRole
    let characteristics: BLEServiceCharacteristics
    let configuration: BLETransportConfiguration
    let radio: any GATTRadio

    private let state = Mutex(State())
    private let sendGate = AsyncGate()

    private struct State: Sendable {
        var server: (any GATTServerLink)?
        var client: (any GATTClientLink)?
        var chunker: BLEChunker?
        var reassembler: BLEReassembler?
        /// Server side: characteristics the central subscribed to.
        var subscribed: Set<UUID> = []
        /// State start was written or is being written (§8.3.3.1.1.4): data from the peer is accepted.
        var started = false
        /// State start is through: `waitForConnection()` returns and sends may go out.
        var connected = false
        /// The first error that ended the connection.
        var terminal: TransportError?
        var closedLocally = false
        var inbox: [Data] = []
        var receivers = Waiters<Data>()
        var connectionWaiters = Waiters<Void>()
        var statistics = TransportStatistics()
        var tasks: [Task<Void, Never>] = []
    }

    /// What to do once the lock is released.
    private struct Cleanup {
        var server: (any GATTServerLink)?
        var client: (any GATTClientLink)?
        var stopAdvertising: (any GATTServerLink)?
        var tasks: [Task<Void, Never>] = []

        func run() {
            for task in tasks { task.cancel() }
            stopAdvertising?.stopAdvertising()
            server?.close()
            client?.disconnect()
        }
    }

    init(role: BLERole, endpoint: BLEEndpoint, configuration: BLETransportConfiguration, radio: any GATTRadio) {
        self.role = role
        self.endpoint = endpoint
        self.gattRole = endpoint.gattRole(for: role)
        self.characteristics = .forMode(endpoint.mode)
        self.configuration = configuration
        self.radio = radio
    }

    deinit {
        let cleanup = state.withLock { state in
            Cleanup(server: state.server, client: state.client, tasks: state.tasks)
        }
        cleanup.run()
    }

    // MARK: - Setting up

    /// GATT server side: publish and advertise the service (Table 11 or 12) and wait for a central.
    func startServer() async throws(TransportError) {
        let ident = try endpoint.requiredIdent()
        let definition = characteristics.serviceDefinition(serviceUUID: endpoint.serviceUUID, identValue: ident)
        let link = try await radio.advertise(definition) { [weak self] event in self?.handle(event) }
        let accepted = state.withLock { state -> Bool in
            guard !state.closedLocally else { return false }
            state.server = link
            return true
        }
        guard accepted else {
            link.close()
            throw .closed
        }
        startConnectionTimer()
    }

    /// GATT client side, in the background; `waitForConnection()` reports the outcome. The mdoc in central client
    /// mode scans until the reader appears (`scanTimeout` nil).
    func startClientInBackground(scanTimeout: Duration?) throws(TransportError) {
        _ = try endpoint.requiredIdent()
        let task = Task { [self] in
            do throws(TransportError) {
                try await runClient(scanTimeout: scanTimeout)
            } catch {
                // The error is the connection's terminal state; waitForConnection() reports it.
            }
        }
        adopt(task)
        startConnectionTimer()
    }

    /// Keeps a background task so that closing cancels it (at once if already closed).
    private func adopt(_ task: Task<Void, Never>) {
        let keep = state.withLock { state -> Bool in
            guard state.terminal == nil else { return false }
            state.tasks.append(task)
            return true
        }
        if !keep { task.cancel() }
    }

    /// GATT client side (§8.3.3.1.1.4): scan, connect, check the characteristics, read and check Ident (mdoc
    /// reader service only), subscribe to State and Server2Client, write State start.
    private func runClient(scanTimeout: Duration?) async throws(TransportError) {
        do throws(TransportError) {
            let expectedIdent = try endpoint.requiredIdent()
            let link = try await radio.connect(service: endpoint.serviceUUID, scanTimeout: scanTimeout) {
                [weak self] event in self?.handle(event)
            }
            let chunker: BLEChunker
            do throws(TransportError) {
                chunker = try BLEChunker(attMTU: link.attMTU)
            } catch {
                link.disconnect()
                throw error
            }
            try state.withLock { state throws(TransportError) in
                if state.closedLocally {
                    link.disconnect()
                    throw .closed
                }
                if let terminal = state.terminal {
                    link.disconnect()
                    throw terminal
                }
                state.client = link
                state.chunker = chunker
                state.reassembler = makeReassembler(chunker)
                state.statistics.attMTU = link.attMTU
            }
            var required = [characteristics.state, characteristics.client2Server, characteristics.server2Client]
            if let ident = characteristics.ident { required.append(ident) }
            for uuid in required where !link.characteristics.contains(uuid) {
                throw .characteristicNotFound(uuid)
            }
            if let identUUID = characteristics.ident, let expectedIdent {
                let value = try await link.read(identUUID)
                state.withLock { $0.statistics.controlPDUsSent += 1 }
                // The Ident is derived from a key: compared in time independent of where it differs.
                guard ConstantTime.equal(value, expectedIdent) else { throw .identMismatch }
            }
            try await link.subscribe(characteristics.state)
            try await link.subscribe(characteristics.server2Client)
            try state.withLock { state throws(TransportError) in
                if let terminal = state.terminal { throw terminal }
                state.started = true
            }
            try await link.writeWithoutResponse(Data([BLEStateValue.start.rawValue]), characteristic: characteristics.state)
            try state.withLock { state throws(TransportError) in
                if let terminal = state.terminal { throw terminal }
                state.statistics.controlPDUsSent += 1
                state.connected = true
                state.connectionWaiters.resumeAll(with: .success(()))
            }
        } catch {
            throw fail(error)
        }
    }

    private func makeReassembler(_ chunker: BLEChunker) -> BLEReassembler {
        BLEReassembler(
            chunker: chunker, maximumMessageSize: configuration.maximumMessageSize,
            requireFullNonFinalChunks: configuration.requireFullNonFinalChunks)
    }

    private func startConnectionTimer() {
        guard let timeout = configuration.connectionTimeout else { return }
        let task = Task { [weak self] in
            do {
                try await Task.sleep(for: timeout)
            } catch {
                return
            }
            self?.failIfNotStarted(.timedOut)
        }
        adopt(task)
    }

    private func failIfNotStarted(_ error: TransportError) {
        let cleanup = state.withLock { state -> Cleanup? in
            guard !state.started else { return nil }
            return terminate(&state, error)
        }
        cleanup?.run()
    }

    // MARK: - Events

    /// GATT server side: what the central does.
    private func handle(_ event: GATTServerEvent) {
        let cleanup = state.withLock { state -> Cleanup? in
            guard state.terminal == nil else { return nil }
            switch event {
            case .connected(let attMTU):
                do throws(TransportError) {
                    let chunker = try BLEChunker(attMTU: attMTU)
                    state.chunker = chunker
                    state.reassembler = makeReassembler(chunker)
                    state.statistics.attMTU = attMTU
                    state.subscribed = []
                } catch {
                    return terminate(&state, error)
                }
                return nil
            case .subscribed(let uuid):
                state.subscribed.insert(uuid)
                return nil
            case .unsubscribed(let uuid):
                state.subscribed.remove(uuid)
                return nil
            case .written(let uuid, let value):
                if uuid == characteristics.state {
                    state.statistics.controlPDUsReceived += 1
                    return serverReceivedState(&state, value)
                }
                if uuid == characteristics.client2Server {
                    return receivedChunk(&state, value)
                }
                return terminate(&state, .protocolViolation("write to a characteristic that takes none"))
            case .disconnected:
                if state.started { return terminate(&state, .disconnected) }
                // Lost before State start: wait for the central to come back (§8.3.3.1.1.8).
                state.chunker = nil
                state.reassembler = nil
                state.subscribed = []
                return nil
            }
        }
        cleanup?.run()
    }

    /// GATT client side: what the server does.
    private func handle(_ event: GATTClientEvent) {
        let cleanup = state.withLock { state -> Cleanup? in
            guard state.terminal == nil else { return nil }
            switch event {
            case .notified(let uuid, let value):
                if uuid == characteristics.state {
                    state.statistics.controlPDUsReceived += 1
                    guard value.count == 1, value.first == BLEStateValue.end.rawValue else {
                        return terminate(&state, .protocolViolation(Self.describeState(value, from: "the GATT server")))
                    }
                    return terminate(&state, .sessionEnded)
                }
                if uuid == characteristics.server2Client {
                    return receivedChunk(&state, value)
                }
                return terminate(&state, .protocolViolation("notification on a characteristic that sends none"))
            case .disconnected:
                return terminate(&state, .disconnected)
            }
        }
        cleanup?.run()
    }

    /// State written by the GATT client (§8.3.3.1.1.5, Table 13).
    private func serverReceivedState(_ state: inout State, _ value: Data) -> Cleanup? {
        guard value.count == 1, let command = value.first.flatMap(BLEStateValue.init(rawValue:)) else {
            return terminate(&state, .protocolViolation(Self.describeState(value, from: "the GATT client")))
        }
        switch command {
        case .end:
            return terminate(&state, .sessionEnded)
        case .start:
            guard !state.started else {
                return terminate(&state, .protocolViolation("State start written twice"))
            }
            guard state.chunker != nil else {
                return terminate(&state, .protocolViolation("State start before the link was up"))
            }
            guard state.subscribed.contains(characteristics.state),
                state.subscribed.contains(characteristics.server2Client)
            else {
                return terminate(
                    &state, .protocolViolation("State start before subscribing to State and Server2Client"))
            }
            state.started = true
            state.connected = true
            state.connectionWaiters.resumeAll(with: .success(()))
            // Transmission started: no second central, and no re-establishment (§8.3.3.1.1.8).
            var cleanup = Cleanup()
            cleanup.stopAdvertising = state.server
            return cleanup
        }
    }

    private static func describeState(_ value: Data, from sender: String) -> String {
        if value.count != 1 { return "State value of \(value.count) bytes from \(sender)" }
        let byte = value.first ?? 0
        if byte == BLEStateValue.start.rawValue { return "State start from the GATT server" }
        return "unknown State value \(String(format: "0x%02x", byte)) from \(sender)"
    }

    /// A Client2Server / Server2Client value.
    private func receivedChunk(_ state: inout State, _ value: Data) -> Cleanup? {
        guard state.started, var reassembler = state.reassembler else {
            return terminate(&state, .protocolViolation("data before State start"))
        }
        state.statistics.chunksReceived += 1
        state.statistics.bytesOnAirReceived += value.count + ATT.headerLength
        let message: Data?
        do throws(TransportError) {
            message = try reassembler.append(value)
        } catch {
            state.reassembler = reassembler
            return terminate(&state, error)
        }
        state.reassembler = reassembler
        if let message {
            state.statistics.messagesReceived += 1
            state.statistics.payloadBytesReceived += message.count
            if !state.receivers.resumeFirst(with: .success(message)) {
                state.inbox.append(message)
            }
        }
        return nil
    }

    /// Ends the connection with `error` unless it has already ended; waiters learn it, the link is released.
    private func terminate(_ state: inout State, _ error: TransportError) -> Cleanup {
        var cleanup = Cleanup(tasks: state.tasks)
        state.tasks = []
        if state.terminal == nil {
            state.terminal = error
            state.connectionWaiters.resumeAll(with: .failure(error))
            if state.inbox.isEmpty { state.receivers.resumeAll(with: .failure(error)) }
        }
        cleanup.server = state.server
        cleanup.client = state.client
        state.server = nil
        state.client = nil
        return cleanup
    }

    /// Ends the connection with `error` (if not ended yet) and returns the error it ended with.
    @discardableResult
    func fail(_ error: TransportError) -> TransportError {
        let (cleanup, terminal) = state.withLock { state in
            let cleanup = terminate(&state, error)
            return (cleanup, state.terminal ?? error)
        }
        cleanup.run()
        return terminal
    }

    // MARK: - Using the connection

    var isOpen: Bool { state.withLock { !$0.closedLocally && $0.terminal == nil } }

    var statistics: TransportStatistics { state.withLock { $0.statistics } }

    /// Completes once State start was written; throws the error that ended the connection before that.
    func waitForConnection() async throws(TransportError) {
        if Task.isCancelled { throw .closed }
        let id = try state.withLock { state throws(TransportError) -> UInt64? in
            if state.closedLocally { throw .closed }
            if state.connected { return nil }
            if let terminal = state.terminal { throw terminal }
            return state.connectionWaiters.reserve()
        }
        guard let id else { return }
        let result = await suspend(
            id: id, timeout: nil,
            park: { id, continuation in state.withLock { $0.connectionWaiters.park(id, continuation) } },
            abandon: { [weak self] id, error in
                self?.state.withLock { $0.connectionWaiters.abandon(id, with: error) }
            })
        try result.get()
    }

    /// The next reassembled message. Messages that arrived before the connection ended are delivered first.
    func receive(timeout: Duration?) async throws(TransportError) -> Data {
        if Task.isCancelled { throw .closed }
        let next = try state.withLock { state throws(TransportError) -> (message: Data?, id: UInt64) in
            if state.closedLocally { throw .closed }
            if !state.inbox.isEmpty { return (state.inbox.removeFirst(), 0) }
            if let terminal = state.terminal { throw terminal }
            return (nil, state.receivers.reserve())
        }
        if let message = next.message { return message }
        let result = await suspend(
            id: next.id, timeout: timeout,
            park: { id, continuation in state.withLock { $0.receivers.park(id, continuation) } },
            abandon: { [weak self] id, error in self?.state.withLock { $0.receivers.abandon(id, with: error) } })
        return try result.get()
    }

    /// Chunks `message` onto Client2Server (GATT client) or Server2Client (GATT server).
    func send(_ message: Data) async throws(TransportError) {
        try await waitForConnection()
        try await sendGate.acquire()
        defer { sendGate.release() }
        if Task.isCancelled { throw .closed }
        let chunker = try state.withLock { state throws(TransportError) -> BLEChunker in
            if state.closedLocally { throw .closed }
            if let terminal = state.terminal { throw terminal }
            guard let chunker = state.chunker else { throw .disconnected }
            return chunker
        }
        let target = gattRole == .server ? characteristics.server2Client : characteristics.client2Server
        for chunk in chunker.chunks(of: message) {
            do throws(TransportError) {
                // Cancelled halfway through a message: the peer's reassembly can't recover, so end the connection.
                if Task.isCancelled { throw .closed }
                // `transmit` refuses a chunk once the connection ended. After the last chunk went out the
                // message is sent, even if the peer has already answered and ended the session meanwhile.
                try await transmit(chunk, on: target)
                state.withLock { state in
                    state.statistics.chunksSent += 1
                    state.statistics.bytesOnAirSent += chunk.count + ATT.headerLength
                }
            } catch {
                throw fail(error)
            }
        }
        state.withLock { state in
            state.statistics.messagesSent += 1
            state.statistics.payloadBytesSent += message.count
        }
    }

    private func transmit(_ value: Data, on characteristic: UUID) async throws(TransportError) {
        let (server, client) = try state.withLock { state throws(TransportError) in
            if state.closedLocally { throw .closed }
            if let terminal = state.terminal { throw terminal }
            return (state.server, state.client)
        }
        if let server {
            try await server.notify(value, characteristic: characteristic)
        } else if let client {
            try await client.writeWithoutResponse(value, characteristic: characteristic)
        } else {
            throw .disconnected
        }
    }

    /// Session termination (§8.3.3.1.1.5): State End, then disconnect. Best effort; the handle is closed after.
    func sendEnd() async {
        let connected = state.withLock { !$0.closedLocally && $0.terminal == nil && $0.connected }
        if connected {
            do throws(TransportError) {
                try await transmit(Data([BLEStateValue.end.rawValue]), on: characteristics.state)
                state.withLock { $0.statistics.controlPDUsSent += 1 }
            } catch {
                // The link is already gone; closing below is all that is left to do.
            }
        }
        close()
    }

    /// Stops advertising / disconnects; waiters get `.closed`. Idempotent.
    func close() {
        let cleanup = state.withLock { state -> Cleanup? in
            guard !state.closedLocally else { return nil }
            state.closedLocally = true
            let cleanup = terminate(&state, .closed)
            // Messages not taken yet are dropped with the handle.
            state.inbox = []
            state.receivers.resumeAll(with: .failure(.closed))
            state.connectionWaiters.resumeAll(with: .failure(.closed))
            return cleanup
        }
        cleanup?.run()
    }
}

