#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
#else
@preconcurrency import CoreBluetoothDouble
#endif
import Foundation
import Synchronization

/// The real radio on Apple platforms: `advertise` runs a `CBPeripheralManager` (GATT server), `connect` a
/// `CBCentralManager` (GATT client). Each operation gets its own manager on a private serial queue; the adapters
/// only translate between CoreBluetooth callbacks and the `GATTRadio` operations, all protocol logic stays in
/// `BLEConnection`.
public final class CoreBluetoothRadio: GATTRadio {
    public let defaultScanTimeout: Duration?
    private let servers = Mutex<[UUID: WeakServer]>([:])

    private struct WeakServer: Sendable {
        weak var server: CoreBluetoothPeripheralServer?
    }

    public init(scanTimeout: Duration = .seconds(20)) {
        self.defaultScanTimeout = scanTimeout
    }

    /// False when the user or a policy denied Bluetooth; power state is only known once a manager exists.
    public var isAvailable: Bool {
        switch CBManager.authorization {
        case .denied, .restricted: return false
        default: return true
        }
    }

    public func advertise(
        _ service: GATTServiceDefinition, events: @escaping @Sendable (GATTServerEvent) -> Void
    ) async throws(TransportError) -> any GATTServerLink {
        if servers.withLock({ $0[service.uuid]?.server?.isAdvertising == true }) {
            throw .alreadyAdvertising(service.uuid)
        }
        let server = CoreBluetoothPeripheralServer(definition: service, events: events)
        try await server.start()
        servers.withLock { $0[service.uuid] = WeakServer(server: server) }
        return server
    }

    public func connect(
        service: UUID, scanTimeout: Duration?, events: @escaping @Sendable (GATTClientEvent) -> Void
    ) async throws(TransportError) -> any GATTClientLink {
        let client = CoreBluetoothCentralClient(serviceUUID: service, events: events)
        try await client.start(scanTimeout: scanTimeout)
        return client
    }

    public var advertisedServices: Set<UUID> {
        get async {
            servers.withLock { servers in
                servers = servers.filter { $0.value.server != nil }
                return Set(servers.filter { $0.value.server?.isAdvertising == true }.keys)
            }
        }
    }
}

/// Maps a CoreBluetooth manager state to the transport's errors; nil while still unknown / resetting.
func transportState(_ state: CBManagerState) -> Result<Void, TransportError>? {
    switch state {
    case .poweredOn: return .success(())
    case .unauthorized: return .failure(.permissionDenied)
    case .poweredOff, .unsupported: return .failure(.radioUnavailable)
    case .unknown, .resetting: return nil
    @unknown default: return nil
    }
}

extension CBUUID {
    convenience init(uuid: UUID) { self.init(nsuuid: uuid) }

    /// The 128-bit UUID (16-bit and 32-bit SIG UUIDs expand with the Bluetooth base UUID).
    var foundationUUID: UUID? {
        var bytes = [UInt8](data)
        switch bytes.count {
        case 2: bytes = [0, 0] + bytes + [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]
        case 4: bytes = bytes + [0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]
        case 16: break
        default: return nil
        }
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
            bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
