import Foundation
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
    }

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
        do {
            try await clock.sleep(until: deadline, tolerance: nil)
        } catch {
            throw .closed
        }
    }

    /// How late after the previous PDU the next one may be queued and still go in the same connection event: the
    /// 150 µs inter-frame space plus what a controller's transmit buffer absorbs of the host's scheduling delay
    /// (a real sender queues several Write Commands at once; this simulation hands them over one by one).
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
        guard let delivered = try await carry(value, characteristic: characteristic) else { return }
        let handler = state.withLock { $0.up ? $0.serverEvents : nil }
        guard let handler else { throw .disconnected }
        handler(.written(characteristic, delivered))
    }

    /// Server → client Handle Value Notification; not delivered if the client did not subscribe (as on air).
    func notify(_ value: Data, characteristic: UUID) async throws(TransportError) {
        guard let definition = service.characteristic(characteristic) else {
            throw .characteristicNotFound(characteristic)
        }
        guard definition.properties.contains(.notify) else {
            throw .protocolViolation("characteristic \(characteristic.uuidString) does not notify")
        }
        guard let delivered = try await carry(value, characteristic: characteristic) else { return }
        let handler = state.withLock { state in
            state.up && state.subscribed.contains(characteristic) ? state.clientEvents : nil
        }
        handler?(.notified(characteristic, delivered))
    }

    /// Applies faults and timing; returns the bytes to deliver, or nil when the PDU is swallowed.
    private func carry(_ value: Data, characteristic: UUID) async throws(TransportError) -> Data? {
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
            return nil
        case .deliver(let bytes):
            try await occupyAir(valueLength: bytes.count)
            return bytes
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
