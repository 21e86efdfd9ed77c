import Foundation

/// What the GATT server side hears from the connected central. Delivered in order, one at a time.
public enum GATTServerEvent: Sendable, Hashable {
    /// A central connected; `attMTU` is the negotiated ATT_MTU.
    case connected(attMTU: Int)
    /// The central enabled notifications (CCCD 0x0001) on a characteristic.
    case subscribed(UUID)
    /// The central disabled notifications on a characteristic.
    case unsubscribed(UUID)
    /// A Write Command (write without response) from the central.
    case written(UUID, Data)
    /// The central went away.
    case disconnected
}

/// What the GATT client side hears from the server. Delivered in order, one at a time.
public enum GATTClientEvent: Sendable, Hashable {
    /// A Handle Value Notification.
    case notified(UUID, Data)
    /// The link dropped.
    case disconnected
}

/// The GATT server side of a published, advertised service: the thing a CoreBluetooth `CBPeripheralManager`
/// adapter, the simulated radio and the loopback radio implement. One central at a time.
public protocol GATTServerLink: AnyObject, Sendable {
    var serviceUUID: UUID { get }
    /// Sends a notification to the subscribed central.
    func notify(_ value: Data, characteristic: UUID) async throws(TransportError)
    /// Stops advertising; a connected central stays connected.
    func stopAdvertising()
    /// Stops advertising, removes the service and drops the central. Idempotent; no event follows.
    func close()
}

/// The GATT client side of a connection to a discovered service (CoreBluetooth `CBPeripheral`, simulated,
/// loopback).
public protocol GATTClientLink: AnyObject, Sendable {
    /// The negotiated ATT_MTU (the client requests the highest it can, §8.3.3.1.1.4).
    var attMTU: Int { get }
    /// The characteristics discovered in the service.
    var characteristics: Set<UUID> { get }
    /// Read Request on a readable characteristic.
    func read(_ characteristic: UUID) async throws(TransportError) -> Data
    /// Enables notifications (writes 0x0001 to the CCCD) and returns once the server acknowledged.
    func subscribe(_ characteristic: UUID) async throws(TransportError)
    /// Write Command (write without response).
    func writeWithoutResponse(_ value: Data, characteristic: UUID) async throws(TransportError)
    /// Drops the link. Idempotent; no event follows.
    func disconnect()
}

/// A BLE radio as the ISO 18013-5 protocol needs it: advertise a service as peripheral, or scan for one and
/// connect as central. Events go to the handler given at creation, so none is lost before the caller has the link.
public protocol GATTRadio: AnyObject, Sendable {
    /// Whether the radio is powered on and usable.
    var isAvailable: Bool { get }
    /// How long `connect` scans when the caller does not say.
    var defaultScanTimeout: Duration? { get }
    /// Publishes `service` and advertises its UUID.
    func advertise(
        _ service: GATTServiceDefinition, events: @escaping @Sendable (GATTServerEvent) -> Void
    ) async throws(TransportError) -> any GATTServerLink
    /// Scans for `service` (up to `scanTimeout`, nil = until cancelled), connects, negotiates the MTU and
    /// discovers the characteristics.
    func connect(
        service: UUID, scanTimeout: Duration?, events: @escaping @Sendable (GATTClientEvent) -> Void
    ) async throws(TransportError) -> any GATTClientLink
    /// Services this radio currently advertises.
    var advertisedServices: Set<UUID> { get async }
}
