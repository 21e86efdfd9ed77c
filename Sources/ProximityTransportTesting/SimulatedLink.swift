import Foundation
import ProximityTransport
import Synchronization

/// One simulated LE connection between a central (GATT client) and a peripheral's service (GATT server). It
/// applies the air's timing and faults to every PDU and delivers it to the other end's event handler, in order.
final class SimulatedLink: Sendable {
    let service: GATTServiceDefinition
    let attMTU: Int
    private let configuration: SimulatedAirConfiguration
    private let state: Mutex<State>
    /// Called once when the link goes down, so the air can free the service for another central.
    private let onDrop: @Sendable () -> Void

    private struct State: Sendable {
        var up = true
        var serverEvents: (@Sendable (GATTServerEvent) -> Void)?
        var clientEvents: (@Sendable (GATTClientEvent) -> Void)?
        var subscribed: Set<UUID> = []
        var chunkNumber = 0
        var stalled = false
        /// When the air is free again (timing is serialised per link, both directions sharing it).
        var airFreeAt: ContinuousClock.Instant?
        /// The first connection event; later events follow every `connectionInterval`.
        var anchor = ContinuousClock.now
        /// Write Commands and Notifications reserved on air and not yet delivered, in air order.
        var queued: [QueuedPDU] = []
        /// Whether a courier task is delivering `queued`.
        var courierRunning = false
    }

    /// A PDU on its way: it reaches the other end when its air time `end` has passed.
    private struct QueuedPDU: Sendable {
        let end: ContinuousClock.Instant
        let deliver: @Sendable () -> Void
    }

    /// How many protocol chunks a sender may have queued on the link before `write`/`notify` waits: the
    /// controller's transmit buffers. A host hands a controller several Write Commands or Notifications at once
    /// and they go out back to back in one connection event (Bluetooth Core Vol 6 Part B §4.5.1); a sender that
    /// handed them over one at a time would miss the event whenever its task is scheduled late.
    static let transmitBuffers = 4

    /// Characteristics whose values are protocol chunks (what faults count): Client2Server and Server2Client of
    /// both ISO 18013-5 services.
    static let chunkCharacteristics: Set<UUID> = [
        BLEServiceCharacteristics.mdocService.client2Server, BLEServiceCharacteristics.mdocService.server2Client,
        BLEServiceCharacteristics.mdocReaderService.client2Server,
        BLEServiceCharacteristics.mdocReaderService.server2Client,
    ]

    init(
        service: GATTServiceDefinition, configuration: SimulatedAirConfiguration,
        serverEvents: @escaping @Sendable (GATTServerEvent) -> Void,
        clientEvents: @escaping @Sendable (GATTClientEvent) -> Void,
        onDrop: @escaping @Sendable () -> Void
    ) {
        self.service = service
        self.attMTU = configuration.attMTU
        self.configuration = configuration
        self.onDrop = onDrop
        self.state = Mutex(State(serverEvents: serverEvents, clientEvents: clientEvents))
    }

    var isUp: Bool { state.withLock { $0.up } }

    // MARK: - Connection events

    /// Tells the server a central is here (after the connection latency).
    func announceConnection() {
        let handler = state.withLock { $0.up ? $0.serverEvents : nil }
        handler?(.connected(attMTU: attMTU))
    }

    /// Takes the link down; the ends named get `.disconnected`.
    func drop(notifyServer: Bool, notifyClient: Bool) {
        let handlers = state.withLock { state -> (server: (@Sendable (GATTServerEvent) -> Void)?, client: (@Sendable (GATTClientEvent) -> Void)?)? in
            guard state.up else { return nil }
            state.up = false
            let handlers = (state.serverEvents, state.clientEvents)
            state.serverEvents = nil
            state.clientEvents = nil
            return handlers
        }
        guard let handlers else { return }
        onDrop()
        if notifyServer { handlers.server?(.disconnected) }
        if notifyClient { handlers.client?(.disconnected) }
    }

    // MARK: - PDUs

    /// Waits for the PDU's air time; cancellation throws `.closed` (the PDU is lost).
    private func occupyAir(valueLength: Int) async throws(TransportError) {
        let cost = configuration.cost(valueLength: valueLength)
        guard cost > .zero || configuration.connectionInterval != nil else { return }
        let clock = ContinuousClock()
        let deadline = state.withLock { state -> ContinuousClock.Instant in
            let start = Self.transmissionStart(
                now: clock.now, airFreeAt: state.airFreeAt, anchor: state.anchor, connectionInterval: configuration.connectionInterval)
            state.airFreeAt = start + cost
            return start + cost
        }
        try await sleep(until: deadline)
    }

    /// How late after the previous PDU the next one may be queued and still go in the same connection event: the
    /// 150 µs inter-frame space plus the host's scheduling delay a controller tolerates before it ends the event.
    static let eventContinuation = Duration.milliseconds(1)

    /// When a PDU queued at `now` goes on air: right after the PDU before it while the link is busy (PDUs queued
    /// behind a busy link share its connection event); otherwise at the next connection event, which fall every
    /// `connectionInterval` from `anchor` (Bluetooth Core Vol 6 Part B §4.5.1). No interval: at once.
    static func transmissionStart(
        now: ContinuousClock.Instant, airFreeAt: ContinuousClock.Instant?, anchor: ContinuousClock.Instant,
        connectionInterval: Duration?
    ) -> ContinuousClock.Instant {
        if let airFreeAt, airFreeAt + eventContinuation >= now { return max(airFreeAt, now) }
        guard let interval = connectionInterval, interval > .zero, now > anchor else { return now }
        let events = ((now - anchor) / interval).rounded(.up)
        return anchor + interval * events
    }

    /// Client → server Write Command.
    func write(_ value: Data, characteristic: UUID) async throws(TransportError) {
        guard let definition = service.characteristic(characteristic) else {
            throw .characteristicNotFound(characteristic)
        }
        guard definition.properties.contains(.writeWithoutResponse) else {
            throw .protocolViolation("characteristic \(characteristic.uuidString) takes no Write Command")
        }
        try await carry(value, characteristic: characteristic) { [self] delivered throws(TransportError) in
            let handler = state.withLock { $0.up ? $0.serverEvents : nil }
            guard let handler else { throw .disconnected }
            handler(.written(characteristic, delivered))
        }
    }

    /// Server → client Handle Value Notification; not delivered if the client did not subscribe (as on air).
    func notify(_ value: Data, characteristic: UUID) async throws(TransportError) {
        guard let definition = service.characteristic(characteristic) else {
            throw .characteristicNotFound(characteristic)
        }
        guard definition.properties.contains(.notify) else {
            throw .protocolViolation("characteristic \(characteristic.uuidString) does not notify")
        }
        try await carry(value, characteristic: characteristic) { [self] delivered throws(TransportError) in
            let handler = state.withLock { state in
                state.up && state.subscribed.contains(characteristic) ? state.clientEvents : nil
            }
            handler?(.notified(characteristic, delivered))
        }
    }

    /// Applies faults and timing, then hands the bytes to `deliver` (not at all when the PDU is swallowed).
    private func carry(
        _ value: Data, characteristic: UUID, deliver: @escaping @Sendable (Data) throws(TransportError) -> Void
    ) async throws(TransportError) {
        enum Fate { case deliver(Data), swallow, drop }
        let fate = try state.withLock { state throws(TransportError) -> Fate in
            guard state.up else { throw .disconnected }
            if state.stalled { return .swallow }
            guard Self.chunkCharacteristics.contains(characteristic) else { return .deliver(value) }
            let number = state.chunkNumber
            state.chunkNumber += 1
            let faults = configuration.faults
            if let limit = faults.dropLinkAfterChunks, number >= limit { return .drop }
            if let limit = faults.stallAfterChunks, number >= limit {
                state.stalled = true
                return .swallow
            }
            if let corruption = faults.corruptions[number] { return .deliver(corruption.apply(to: value)) }
            return .deliver(value)
        }
        switch fate {
        case .drop:
            drop(notifyServer: true, notifyClient: true)
            throw .disconnected
        case .swallow:
            return
        case .deliver(let bytes):
            let cost = configuration.cost(valueLength: bytes.count)
            guard cost > .zero || configuration.connectionInterval != nil else { return try deliver(bytes) }
            if Self.chunkCharacteristics.contains(characteristic) {
                // Like a Write Command or Notification handed to a controller: the sender goes on once a transmit
                // buffer is free; the bytes arrive when their air time is over, or are lost if the link drops.
                try await sleep(until: enqueue(cost: cost, buffers: Self.transmitBuffers) { try? deliver(bytes) })
            } else {
                // Control PDUs (State, Ident) return once delivered, behind every chunk queued before them.
                let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, TransportError>, Never>) in
                    _ = enqueue(cost: cost, buffers: 0) {
                        do throws(TransportError) {
                            try deliver(bytes)
                            continuation.resume(returning: .success(()))
                        } catch {
                            continuation.resume(returning: .failure(error))
                        }
                    }
                }
                try result.get()
            }
        }
    }

    /// Reserves the PDU's air time and queues its delivery; returns when the sender may go on: at once while
    /// fewer than `buffers` PDUs are still on air, else when enough of them have gone.
    private func enqueue(cost: Duration, buffers: Int, deliver: @escaping @Sendable () -> Void) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        let (startCourier, pending) = state.withLock { state -> (Bool, [ContinuousClock.Instant]) in
            let start = Self.transmissionStart(
                now: now, airFreeAt: state.airFreeAt, anchor: state.anchor, connectionInterval: configuration.connectionInterval)
            state.airFreeAt = start + cost
            state.queued.append(QueuedPDU(end: start + cost, deliver: deliver))
            let startCourier = !state.courierRunning
            state.courierRunning = true
            return (startCourier, state.queued.lazy.map(\.end).filter { $0 > now })
        }
        if startCourier { Task { await self.runCourier() } }
        return pending.count <= buffers ? now : pending[pending.count - buffers - 1]
    }

    /// Delivers queued PDUs in air order, each when its air time is over.
    private func runCourier() async {
        let clock = ContinuousClock()
        while true {
            let next = state.withLock { state -> QueuedPDU? in
                guard let first = state.queued.first else {
                    state.courierRunning = false
                    return nil
                }
                return first
            }
            guard let next else { return }
            try? await clock.sleep(until: next.end, tolerance: nil)
            state.withLock { _ = $0.queued.removeFirst() }
            next.deliver()
        }
    }

    /// Cancellation throws `.closed`.
    private func sleep(until deadline: ContinuousClock.Instant) async throws(TransportError) {
        guard deadline > ContinuousClock.now else { return }
        do {
            try await ContinuousClock().sleep(until: deadline, tolerance: nil)
        } catch {
            throw .closed
        }
    }

    /// Read Request / Read Response.
    func read(_ characteristic: UUID) async throws(TransportError) -> Data {
        guard let definition = service.characteristic(characteristic) else {
            throw .characteristicNotFound(characteristic)
        }
        guard definition.properties.contains(.read) else {
            throw .protocolViolation("characteristic \(characteristic.uuidString) is not readable")
        }
        let value = definition.value ?? Data()
        try await occupyAir(valueLength: 2)
        try await occupyAir(valueLength: value.count)
        guard isUp else { throw .disconnected }
        return value
    }

    /// Write Request to the CCCD (0x0001) and its response.
    func subscribe(_ characteristic: UUID) async throws(TransportError) {
        guard let definition = service.characteristic(characteristic) else {
            throw .characteristicNotFound(characteristic)
        }
        guard definition.properties.contains(.notify) else {
            throw .protocolViolation("characteristic \(characteristic.uuidString) does not notify")
        }
        try await occupyAir(valueLength: 4)
        try await occupyAir(valueLength: 0)
        let handler = try state.withLock { state throws(TransportError) in
            guard state.up else { throw TransportError.disconnected }
            state.subscribed.insert(characteristic)
            return state.serverEvents
        }
        handler?(.subscribed(characteristic))
    }
}
