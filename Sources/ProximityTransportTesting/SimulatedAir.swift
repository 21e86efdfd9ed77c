import Foundation
import ProximityTransport
import Synchronization

/// The shared medium of simulated radios in one process: what is advertised, who is connected, and the timing and
/// faults of every link. Deterministic: PDUs are delivered in order, synchronously once their air time has passed.
///
/// ```swift
/// let air = SimulatedAir(configuration: SimulatedAirConfiguration(attMTU: 185))
/// let mdoc = BLETransport(radio: air.makeRadio())
/// let reader = BLETransport(radio: air.makeRadio())
/// ```
public final class SimulatedAir: Sendable {
    struct Advertisement: Sendable {
        let token: UInt64
        let radioID: UInt64
        let definition: GATTServiceDefinition
        let events: @Sendable (GATTServerEvent) -> Void
        var advertising = true
        var link: SimulatedLink?
    }

    private struct State: Sendable {
        var configuration: SimulatedAirConfiguration
        var services: [UUID: Advertisement] = [:]
        var scanners: [UUID: Waiters<Void>] = [:]
        var nextID: UInt64 = 0
        var linksConnected = 0
    }

    private let state: Mutex<State>

    public init(configuration: SimulatedAirConfiguration = SimulatedAirConfiguration()) {
        state = Mutex(State(configuration: configuration))
    }

    /// The configuration links connecting from now on get.
    public var configuration: SimulatedAirConfiguration {
        get { state.withLock { $0.configuration } }
        set { state.withLock { $0.configuration = newValue } }
    }

    /// Sets the faults of links connecting from now on.
    public func setFaults(_ faults: SimulatedFaults) {
        state.withLock { $0.configuration.faults = faults }
    }

    /// A radio attached to this air.
    public func makeRadio(availability: SimulatedRadio.Availability = .poweredOn) -> SimulatedRadio {
        SimulatedRadio(air: self, id: nextID(), availability: availability)
    }

    /// An mdoc-side and a reader-side transport on this air.
    public func makeTransportPair(
        configuration: BLETransportConfiguration = BLETransportConfiguration()
    ) -> (mdoc: BLETransport, reader: BLETransport) {
        (BLETransport(radio: makeRadio(), configuration: configuration),
         BLETransport(radio: makeRadio(), configuration: configuration))
    }

    /// Every service advertised on this air, by any radio.
    public var advertisedServices: Set<UUID> {
        state.withLock { Set($0.services.values.filter(\.advertising).map(\.definition.uuid)) }
    }

    /// Links currently up.
    public var connectedLinkCount: Int { state.withLock { $0.linksConnected } }

    /// Drops every link (both ends see a disconnect), e.g. the devices moved out of range.
    public func dropAllLinks() {
        let links = state.withLock { $0.services.values.compactMap(\.link) }
        for link in links { link.drop(notifyServer: true, notifyClient: true) }
    }

    private func nextID() -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    // MARK: - Peripheral side

    func advertise(
        _ definition: GATTServiceDefinition, radioID: UInt64, events: @escaping @Sendable (GATTServerEvent) -> Void
    ) throws(TransportError) -> UInt64 {
        try state.withLock { state throws(TransportError) -> UInt64 in
            guard state.services[definition.uuid] == nil else { throw .alreadyAdvertising(definition.uuid) }
            state.nextID += 1
            state.services[definition.uuid] = Advertisement(
                token: state.nextID, radioID: radioID, definition: definition, events: events)
            state.scanners[definition.uuid]?.resumeAll(with: .success(()))
            return state.nextID
        }
    }

    func stopAdvertising(_ uuid: UUID, token: UInt64) {
        state.withLock { state in
            guard state.services[uuid]?.token == token else { return }
            state.services[uuid]?.advertising = false
        }
    }

    /// Removes the service; a connected central is dropped.
    func removeService(_ uuid: UUID, token: UInt64) {
        let link = state.withLock { state -> SimulatedLink? in
            guard let entry = state.services[uuid], entry.token == token else { return nil }
            state.services[uuid] = nil
            return entry.link
        }
        link?.drop(notifyServer: false, notifyClient: true)
    }

    func link(for uuid: UUID, token: UInt64) -> SimulatedLink? {
        state.withLock { state in
            guard let entry = state.services[uuid], entry.token == token else { return nil }
            return entry.link
        }
    }

    func advertisedServices(radioID: UInt64) -> Set<UUID> {
        state.withLock { state in
            Set(state.services.values.filter { $0.radioID == radioID && $0.advertising }.map(\.definition.uuid))
        }
    }

    // MARK: - Central side

    /// Scans until `uuid` is advertised and free, then connects.
    func connect(
        to uuid: UUID, scanTimeout: Duration?, events: @escaping @Sendable (GATTClientEvent) -> Void
    ) async throws(TransportError) -> SimulatedLink {
        let clock = ContinuousClock()
        let deadline = scanTimeout.map { clock.now + $0 }
        while true {
            if Task.isCancelled { throw .closed }
            enum Attempt { case connected(SimulatedLink, Duration), wait(UInt64) }
            let attempt = try state.withLock { state throws(TransportError) -> Attempt in
                if var entry = state.services[uuid], entry.advertising, entry.link == nil {
                    let token = entry.token
                    let link = SimulatedLink(
                        service: entry.definition, configuration: state.configuration,
                        serverEvents: entry.events, clientEvents: events,
                        onDrop: { [weak self] in self?.linkDropped(uuid, token: token) })
                    entry.link = link
                    state.services[uuid] = entry
                    state.linksConnected += 1
                    return .connected(link, state.configuration.connectionLatency)
                }
                if let deadline, clock.now >= deadline { throw .serviceNotFound(uuid) }
                return .wait(state.scanners[uuid, default: Waiters()].reserve())
            }
            switch attempt {
            case .connected(let link, let latency):
                if latency > .zero {
                    do {
                        try await clock.sleep(for: latency)
                    } catch {
                        link.drop(notifyServer: false, notifyClient: false)
                        throw .closed
                    }
                }
                guard link.isUp else { throw .disconnected }
                link.announceConnection()
                return link
            case .wait(let id):
                let result = await suspend(
                    id: id, timeout: deadline.map { $0 - clock.now },
                    park: { id, continuation in
                        state.withLock { $0.scanners[uuid, default: Waiters()].park(id, continuation) }
                    },
                    abandon: { [weak self] id, error in
                        self?.state.withLock { $0.scanners[uuid]?.abandon(id, with: error) }
                    })
                switch result {
                case .success: continue
                case .failure(.timedOut): throw .serviceNotFound(uuid)
                case .failure(let error): throw error
                }
            }
        }
    }

    private func linkDropped(_ uuid: UUID, token: UInt64) {
        state.withLock { state in
            state.linksConnected -= 1
            guard var entry = state.services[uuid], entry.token == token else { return }
            entry.link = nil
            state.services[uuid] = entry
            // The service is free again: a scanning central may take it (re-establishment, §8.3.3.1.1.8).
            if entry.advertising {
                state.scanners[uuid]?.resumeAll(with: .success(()))
            }
        }
    }
}
