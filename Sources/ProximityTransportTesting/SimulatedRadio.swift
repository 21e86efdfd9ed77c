import Foundation
import ProximityTransport
import Synchronization

/// A radio on a `SimulatedAir`: advertises services and connects to those of other radios on the same air.
public final class SimulatedRadio: GATTRadio {
    /// Radio state, to exercise `.radioUnavailable` and `.permissionDenied`.
    public enum Availability: Sendable, Hashable {
        case poweredOn
        case poweredOff
        case unauthorized
    }

    public let air: SimulatedAir
    let id: UInt64
    private let availabilityState: Mutex<Availability>

    init(air: SimulatedAir, id: UInt64, availability: Availability) {
        self.air = air
        self.id = id
        self.availabilityState = Mutex(availability)
    }

    public var availability: Availability {
        get { availabilityState.withLock { $0 } }
        set { availabilityState.withLock { $0 = newValue } }
    }

    public var isAvailable: Bool { availability == .poweredOn }

    public var defaultScanTimeout: Duration? { air.configuration.scanTimeout }

    private func checkAvailable() throws(TransportError) {
        switch availability {
        case .poweredOn: return
        case .poweredOff: throw .radioUnavailable
        case .unauthorized: throw .permissionDenied
        }
    }

    public func advertise(
        _ service: GATTServiceDefinition, events: @escaping @Sendable (GATTServerEvent) -> Void
    ) async throws(TransportError) -> any GATTServerLink {
        try checkAvailable()
        let token = try air.advertise(service, radioID: id, events: events)
        return SimulatedServerLink(air: air, serviceUUID: service.uuid, token: token)
    }

    public func connect(
        service: UUID, scanTimeout: Duration?, events: @escaping @Sendable (GATTClientEvent) -> Void
    ) async throws(TransportError) -> any GATTClientLink {
        try checkAvailable()
        let link = try await air.connect(to: service, scanTimeout: scanTimeout, events: events)
        return SimulatedClientLink(link: link)
    }

    public var advertisedServices: Set<UUID> {
        get async { air.advertisedServices(radioID: id) }
    }
}

/// The peripheral's end of a simulated service.
final class SimulatedServerLink: GATTServerLink {
    let air: SimulatedAir
    let serviceUUID: UUID
    let token: UInt64

    init(air: SimulatedAir, serviceUUID: UUID, token: UInt64) {
        self.air = air
        self.serviceUUID = serviceUUID
        self.token = token
    }

    deinit { close() }

    func notify(_ value: Data, characteristic: UUID) async throws(TransportError) {
        guard let link = air.link(for: serviceUUID, token: token) else { throw .disconnected }
        try await link.notify(value, characteristic: characteristic)
    }

    func stopAdvertising() { air.stopAdvertising(serviceUUID, token: token) }

    func close() { air.removeService(serviceUUID, token: token) }
}

/// The central's end of a simulated link.
final class SimulatedClientLink: GATTClientLink {
    let link: SimulatedLink

    init(link: SimulatedLink) { self.link = link }

    deinit { disconnect() }

    var attMTU: Int { link.attMTU }

    var characteristics: Set<UUID> { Set(link.service.characteristics.map(\.uuid)) }

    func read(_ characteristic: UUID) async throws(TransportError) -> Data {
        try await link.read(characteristic)
    }

    func subscribe(_ characteristic: UUID) async throws(TransportError) {
        try await link.subscribe(characteristic)
    }

    func writeWithoutResponse(_ value: Data, characteristic: UUID) async throws(TransportError) {
        try await link.write(value, characteristic: characteristic)
    }

    func disconnect() { link.drop(notifyServer: true, notifyClient: false) }
}
